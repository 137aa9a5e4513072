/** The Conversations filter on visitors' ratings: conversations with an answer rated up, or down. */
export function RatingFilter({ value }: { value: string }) {
  return (
    <div>
      <label className="label" htmlFor="f-rating">
        Rating
      </label>
      <select id="f-rating" className="input" name="rating" defaultValue={value}>
        <option value="">Any</option>
        <option value="down">Rated down</option>
        <option value="up">Rated up</option>
      </select>
    </div>
  );
}

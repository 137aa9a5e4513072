/** What each card of the Bot form gets: the stored values, the save's field errors, and whether it can edit. */
export type BotFieldsProps = {
  v: (name: string) => string;
  errors: Record<string, string | undefined>;
  canEdit: boolean;
};

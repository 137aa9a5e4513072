// A person's photo, or their initial when they have none: the account page and the live console.

export function MemberAvatar({ name, src, size = 24 }: { name: string; src: string | null; size?: number }) {
  const style = { width: size, height: size };
  if (src)
    return (
      // biome-ignore lint/performance/noImgElement: a small same-origin photo; next/image would only resize it
      <img src={src} alt="" style={style} className="rounded-full object-cover" data-avatar="photo" />
    );
  return (
    <span
      aria-hidden="true"
      style={{ ...style, fontSize: Math.round(size / 2.2) }}
      className="inline-flex items-center justify-center rounded-full bg-[var(--surface-muted)] font-semibold"
      data-avatar="initial"
    >
      {(name.trim().slice(0, 1) || "?").toUpperCase()}
    </span>
  );
}

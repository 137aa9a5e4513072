import type { HTMLAttributes, ReactNode } from "react";

/** A .card section; with a title it becomes a labelled region landmark-friendly for screen readers. */
export function Card({
  title,
  description,
  actions,
  children,
  className,
  ...rest
}: Omit<HTMLAttributes<HTMLElement>, "title"> & {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  const headingId = rest.id ? `${rest.id}-title` : undefined;
  return (
    <section className={`card${className ? ` ${className}` : ""}`} aria-labelledby={headingId} {...rest}>
      {title || actions ? (
        <div className="mb-3 flex flex-wrap items-start justify-between gap-2">
          <div>
            {title ? (
              <h2 id={headingId} className="text-lg font-semibold">
                {title}
              </h2>
            ) : null}
            {description ? <p className="mt-0.5 text-sm muted">{description}</p> : null}
          </div>
          {actions ? <div className="flex gap-2">{actions}</div> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}

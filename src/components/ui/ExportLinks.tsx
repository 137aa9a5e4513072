/** The two download buttons of a list page's header; `href` gives the address for each format. */
export function ExportLinks({ href }: { href: (format: "csv" | "json") => string }) {
  return (
    <>
      <a className="btn btn-secondary" href={href("csv")} download>
        Export CSV
      </a>
      <a className="btn btn-secondary" href={href("json")} download>
        Export JSON
      </a>
    </>
  );
}

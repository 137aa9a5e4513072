// Filling in a template of words ("Thanks, {name} will get back to you"): the widget's panel and the server
// (the contact request's confirmation) word the same tables, so the one helper lives below both.

export function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}

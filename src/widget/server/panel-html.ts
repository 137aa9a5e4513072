// The panel page: a shell with the tenant's public config as a JSON data block and the hashed bundle.
// A JSON data block (type="application/json") is never executed, so the page needs no inline script and its
// CSP can say script-src 'self'. Styles come from the hashed CSS file; the tenant colour is applied through
// the CSSOM, which style-src does not govern.

import "server-only";
import { createHash } from "node:crypto";
import { siteEntryFor } from "@/lib/security/origins";
import type { LauncherConfig, PanelConfig } from "../public-config";

/** JSON that is safe inside <script>: no "</script", no "<!--", no line separators that break older parsers. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}

export type PanelAssets = { js: string; css?: string };

export function panelCsp(frameAncestors: readonly string[], avatarUrl: string | null): string {
  // blob: the photo of a person who joined, fetched with the visitor's token (panel/LiveBar.tsx).
  const img = ["'self'", "data:", "blob:"];
  if (avatarUrl) img.push(new URL(avatarUrl).origin);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${img.join(" ")}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors.join(" ")}`,
  ].join("; ");
}

export function panelHtml(config: PanelConfig, assets: PanelAssets): string {
  const title = escapeHtml(config.name);
  const css = assets.css ? `<link rel="stylesheet" href="${escapeHtml(assets.css)}">` : "";
  return `<!doctype html>
<html lang="${config.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
${css}
<script id="michi-config" type="application/json">${scriptJson(config)}</script>
<script src="${escapeHtml(assets.js)}" defer></script>
</head>
<body><div id="michi-app"></div></body>
</html>`;
}

// The unavailable page styles itself with one inline block, allowed by its hash rather than 'unsafe-inline'.
const UNAVAILABLE_CSS =
  "body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1b1f24;background:#fff;display:grid;place-items:center;min-height:100vh}p{margin:2rem;text-align:center}";
const UNAVAILABLE_CSS_HASH = `sha256-${createHash("sha256").update(UNAVAILABLE_CSS).digest("base64")}`;

export function unavailableHtml(message: string, lang: string): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(message)}</title><style>${UNAVAILABLE_CSS}</style></head>
<body><p role="status">${escapeHtml(message)}</p></body>
</html>`;
}

export function unavailableCsp(frameAncestors: readonly string[]): string {
  const ancestors = frameAncestors.length ? frameAncestors.join(" ") : "'none'";
  return `default-src 'none'; style-src '${UNAVAILABLE_CSS_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}`;
}

/**
 * The launcher's settings as a page the loader frames: one inline script, allowed by its hash, that posts
 * them to the embedding origin the server checked. Nothing else runs or loads.
 */
export function launcherFrame(key: string, cfg: LauncherConfig, origin: string) {
  const script = `parent.postMessage(${scriptJson({ michi: key, type: "config", c: cfg })},${scriptJson(origin)})`;
  const scriptHash = `sha256-${createHash("sha256").update(script).digest("base64")}`;
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"></head><body><script>${script}</script></body></html>`;
  return { html, scriptHash };
}

export function launcherFrameCsp(frameAncestors: readonly string[], scriptHash: string): string {
  const ancestors = frameAncestors.length ? frameAncestors.join(" ") : "'none'";
  return `default-src 'none'; script-src '${scriptHash}'; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}`;
}

/** True for a bare http(s) origin, the only form that may stand in a frame-ancestors source list. */
export function isPlainOrigin(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === "https:" || u.protocol === "http:") && u.origin === value;
  } catch {
    return false;
  }
}

/**
 * For a site that is not among the business's domains: a frame that site may show, whose one script tells the
 * loader why there is no launcher, so the site's developer reads a sentence in the console instead of a bare
 * CSP error. It carries nothing of the business but the fact that this site is not on its list.
 */
export function launcherRefusedFrame(key: string, origin: string) {
  const t = `michi-chat: no chat launcher on ${origin}, because this site is not among this business's site domains. Add ${siteEntryFor(origin)} under Site & embed in the michi-chat admin.`;
  const script = `parent.postMessage(${scriptJson({ michi: key, type: "refused", t })},${scriptJson(origin)})`;
  const scriptHash = `sha256-${createHash("sha256").update(script).digest("base64")}`;
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"></head><body><script>${script}</script></body></html>`;
  return { html, csp: launcherFrameCsp([origin], scriptHash) };
}

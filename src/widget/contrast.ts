// Tenant colours are chosen for branding, not legibility. Everything drawn on the tenant colour takes black or
// white text, whichever contrasts more (for any colour, one of them reaches WCAG AA for normal text).

import { BOT_DEFAULTS } from "@/shared/bot-defaults";

/** The bot colour until the business picks one: the same default the Bot form shows. */
export const DEFAULT_COLOR = BOT_DEFAULTS.color;
/** Assistant bubbles are drawn on this background; links inside them need 4.5:1 against it. */
export const BUBBLE_BG = "#f1f3f6";
const FALLBACK_LINK = "#1a4fa0";

export type Rgb = [number, number, number];

/** Parses #rgb or #rrggbb; anything else (names, rgb(), url(...)) is refused. */
export function parseHex(input: string | null | undefined): Rgb | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec((input ?? "").trim());
  if (!m?.[1]) return null;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join("") : m[1];
  return [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as Rgb;
}

export function toHex(rgb: Rgb): string {
  return `#${rgb.map((v) => v.toString(16).padStart(2, "0")).join("")}`;
}

/** WCAG 2 relative luminance. */
export function luminance([r, g, b]: Rgb): number {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];

/** Black or white, whichever reads better on `bg`. */
export function readableText(bg: Rgb): "#000000" | "#ffffff" {
  return contrastRatio(bg, BLACK) > contrastRatio(bg, WHITE) ? "#000000" : "#ffffff";
}

export type Theme = {
  /** The tenant colour (or the default when theirs does not parse). */
  color: string;
  /** Text drawn on `color`. */
  onColor: string;
  /** Link colour inside assistant bubbles: the tenant colour when it is legible there, else a dark blue. */
  link: string;
};

export function themeFor(color: string | null | undefined): Theme {
  const rgb = parseHex(color) ?? (parseHex(DEFAULT_COLOR) as Rgb);
  const bubble = parseHex(BUBBLE_BG) as Rgb;
  return {
    color: toHex(rgb),
    onColor: readableText(rgb),
    link: contrastRatio(rgb, bubble) >= 4.5 ? toHex(rgb) : FALLBACK_LINK,
  };
}

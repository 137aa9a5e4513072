// What a bot looks like before its business saves the Bot form, in one place: the form starts from these
// values, the widget falls back to them, and the first-start seed stores them. Before, the form showed one
// colour and the widget drew another until the first save.

export const BOT_DEFAULTS = {
  color: "#0f766e",
  position: "right",
  language: "en",
} as const;

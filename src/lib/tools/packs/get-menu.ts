import "server-only";
import { asNumber, clipText, firstOf, fold, isRecord } from "../project";
import { definePack, getJson, ToolWorldError } from "../registry";

// A restaurant's menu JSON, filtered here by the visitor's wish (a word, a diet) and cut to a few dishes with
// four fields each. Accepted shapes: a list of dishes, { items: [...] }, or { sections: [{ name, items }] }.

const DIETS = ["vegan", "vegetarian", "gluten_free", "dairy_free", "nut_free", "halal"] as const;
type Diet = (typeof DIETS)[number];

const DIET_ALIASES: Record<string, Diet> = {
  vegan: "vegan",
  vg: "vegan",
  "plant-based": "vegan",
  vegetarian: "vegetarian",
  veggie: "vegetarian",
  v: "vegetarian",
  "gluten-free": "gluten_free",
  gluten_free: "gluten_free",
  glutenfree: "gluten_free",
  gf: "gluten_free",
  "dairy-free": "dairy_free",
  dairy_free: "dairy_free",
  df: "dairy_free",
  "nut-free": "nut_free",
  nut_free: "nut_free",
  halal: "halal",
};

function dietsOf(item: Record<string, unknown>): Diet[] {
  const raw = firstOf(item, ["dietary", "diet", "tags", "labels"]);
  const list = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(/[,;]/) : [];
  const out = new Set<Diet>();
  for (const t of list) {
    if (typeof t !== "string") continue;
    const d = DIET_ALIASES[t.trim().toLowerCase()];
    if (d) out.add(d);
  }
  // A vegan dish is vegetarian too, so a vegetarian filter must not hide it.
  if (out.has("vegan")) out.add("vegetarian");
  return [...out];
}

type Dish = { item: Record<string, unknown>; section?: string };

function dishesOf(data: unknown): Dish[] {
  const fromList = (list: unknown, section?: string): Dish[] =>
    Array.isArray(list) ? list.filter(isRecord).map((item) => ({ item, section })) : [];
  if (Array.isArray(data)) return fromList(data);
  if (!isRecord(data)) return [];
  const sections = firstOf(data, ["sections", "categories", "menu"]);
  if (Array.isArray(sections) && sections.some((s) => isRecord(s) && Array.isArray(s.items))) {
    return sections
      .filter(isRecord)
      .flatMap((s) => fromList(s.items, typeof s.name === "string" ? s.name : undefined));
  }
  return fromList(firstOf(data, ["items", "dishes", "products", "menu"]));
}

function priceOf(item: Record<string, unknown>, currency: string): string | undefined {
  const raw = firstOf(item, ["price", "priceFormatted"]);
  const amount = isRecord(raw) ? asNumber(firstOf(raw, ["amount", "value"])) : asNumber(raw);
  if (amount === undefined) return typeof raw === "string" ? clipText(raw, 20) : undefined;
  return currency ? `${amount.toFixed(2)} ${currency}` : amount.toFixed(2);
}

export const menu = definePack({
  id: "get_menu",
  name: "Menu",
  label: "Looking at the menu",
  definition: {
    type: "function",
    function: {
      name: "get_menu",
      description:
        "Dishes and drinks on the current menu with price, a short description and dietary tags. Filter by a word (dish, ingredient, section) and/or a diet.",
      parameters: {
        type: "object",
        properties: {
          query: {
            type: "string",
            maxLength: 80,
            description:
              "A dish, ingredient or section to look for, e.g. 'matcha' or 'desserts'. Omit to list the menu.",
          },
          dietary: { type: "string", enum: [...DIETS], description: "Only dishes suitable for this diet." },
        },
        required: [],
        additionalProperties: false,
      },
    },
  },
  configFields: [
    {
      key: "baseUrl",
      label: "Site base URL",
      type: "url",
      required: true,
      placeholder: "https://www.example.com",
    },
    { key: "path", label: "Path of the menu JSON", type: "path", required: true, default: "/api/menu.json" },
    { key: "currency", label: "Currency shown with prices", type: "text", maxLength: 8, placeholder: "EUR" },
    {
      key: "maxItems",
      label: "Most dishes per answer",
      type: "number",
      integer: true,
      min: 1,
      max: 20,
      default: 8,
    },
  ],
  async run(config, args, ctx) {
    const data = await getJson(`${config.baseUrl}${config.path}`, { signal: ctx.signal });
    const all = dishesOf(data).filter(
      ({ item }) => item.available !== false && typeof firstOf(item, ["name", "title"]) === "string",
    );
    if (all.length === 0) throw new ToolWorldError("The menu is empty or not in a format we understand");
    const query = typeof args.query === "string" ? fold(args.query.trim()) : "";
    const diet = typeof args.dietary === "string" ? (args.dietary as Diet) : undefined;
    const matches = all.filter(({ item, section }) => {
      if (diet && !dietsOf(item).includes(diet)) return false;
      if (!query) return true;
      const hay = fold(
        [firstOf(item, ["name", "title"]), item.description, item.category, section]
          .filter((x) => typeof x === "string")
          .join(" "),
      );
      return query.split(/\s+/).every((word) => hay.includes(word));
    });
    const items = matches.slice(0, config.maxItems).map(({ item }) => ({
      name: clipText(firstOf(item, ["name", "title"]), 80),
      price: priceOf(item, config.currency ?? ""),
      description: clipText(firstOf(item, ["description", "shortDescription", "summary"]), 120),
      dietary: dietsOf(item),
    }));
    return { matches: matches.length, shown: items.length, items };
  },

  category: "Restaurants & cafés",
  summary: "Lets the bot answer menu questions (prices, vegan options, ingredients) from your menu JSON.",
  promptHint:
    "For questions about dishes, drinks, prices or dietary options, call get_menu; never invent dishes.",
  labels: {
    es: "Mirando la carta",
    fr: "Consultation de la carte",
    de: "Schaue in die Speisekarte",
    ja: "メニューを確認しています",
  },
  example: {
    config: { baseUrl: "https://michi-cafe.example", path: "/api/menu.json", currency: "EUR", maxItems: 8 },
    args: { dietary: "vegan" },
    fixtures: {
      "/api/menu.json": {
        updatedAt: "2025-06-01",
        sections: [
          {
            name: "Drinks",
            items: [
              {
                id: 1,
                name: "Oat flat white",
                price: 4.2,
                description: "Double shot with oat milk.",
                tags: ["vegan"],
                sku: "D-01",
              },
              {
                id: 2,
                name: "Matcha latte",
                price: "4.80",
                description: "Ceremonial-grade matcha, whole milk.",
                tags: ["vegetarian"],
              },
            ],
          },
          {
            name: "Food",
            items: [
              {
                id: 3,
                name: "Avocado toast",
                price: 9.5,
                description: "Sourdough, avocado, chili, lime.",
                dietary: ["vegan"],
                cost: 2.1,
              },
              {
                id: 4,
                name: "Croque monsieur",
                price: 8,
                description: "Ham and gruyère.",
                dietary: [],
                available: false,
              },
            ],
          },
        ],
      },
    },
  },
});

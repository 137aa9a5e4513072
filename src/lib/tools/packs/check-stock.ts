import "server-only";
import { asNumber, clipText, findList, firstOf, isRecord } from "../project";
import { definePack, getJson, ToolWorldError } from "../registry";

// Asks the shop's stock endpoint about one product. The visitor's words only ever travel as an encoded query
// value; exact quantities stay private and become a band ("only a few left").

type Band = "out of stock" | "only a few left" | "in stock" | "plenty";

function bandOf(qty: number | undefined, inStock: boolean, low: number): Band {
  if (!inStock || qty === 0) return "out of stock";
  if (qty === undefined) return "in stock";
  if (qty <= low) return "only a few left";
  return qty > low * 5 ? "plenty" : "in stock";
}

function stockOf(item: Record<string, unknown>): { qty?: number; inStock: boolean } {
  let qty = asNumber(firstOf(item, ["quantity", "stock", "inventory_quantity", "inventoryQuantity", "qty"]));
  // Shopify-style products keep the count on their variants.
  if (qty === undefined && Array.isArray(item.variants)) {
    const counts = item.variants
      .filter(isRecord)
      .map((v) => asNumber(firstOf(v, ["inventory_quantity", "quantity", "stock"])));
    if (counts.some((c) => c !== undefined))
      qty = counts.reduce<number>((a, c) => a + Math.max(0, c ?? 0), 0);
  }
  const flag = firstOf(item, ["inStock", "in_stock", "available", "availableForSale"]);
  const inStock = typeof flag === "boolean" ? flag && qty !== 0 : (qty ?? 0) > 0;
  return { qty, inStock };
}

function priceOf(item: Record<string, unknown>, currency: string): string | undefined {
  let raw = firstOf(item, ["price", "salePrice"]);
  if (raw === undefined && Array.isArray(item.variants) && isRecord(item.variants[0]))
    raw = item.variants[0].price;
  const amount = isRecord(raw) ? asNumber(firstOf(raw, ["amount", "value"])) : asNumber(raw);
  if (amount === undefined) return undefined;
  return currency ? `${amount.toFixed(2)} ${currency}` : amount.toFixed(2);
}

export const stock = definePack({
  id: "check_stock",
  name: "Stock check",
  label: "Checking stock",
  definition: {
    type: "function",
    function: {
      name: "check_stock",
      description:
        "Whether a product is in stock in the shop, with its price. Use the product name the visitor gave.",
      parameters: {
        type: "object",
        properties: {
          product: {
            type: "string",
            minLength: 1,
            maxLength: 100,
            description: "The product name or a few words of it.",
          },
        },
        required: ["product"],
        additionalProperties: false,
      },
    },
  },
  configFields: [
    {
      key: "baseUrl",
      label: "Shop base URL",
      type: "url",
      required: true,
      placeholder: "https://shop.example.com",
    },
    { key: "path", label: "Path of the stock search", type: "path", required: true, default: "/api/stock" },
    {
      key: "queryParam",
      label: "Name of the search parameter",
      type: "select",
      default: "q",
      options: [
        { value: "q", label: "q" },
        { value: "query", label: "query" },
        { value: "search", label: "search" },
        { value: "name", label: "name" },
      ],
    },
    { key: "currency", label: "Currency shown with prices", type: "text", maxLength: 8, placeholder: "EUR" },
    {
      key: "lowStock",
      label: 'Say "only a few left" at or below',
      type: "number",
      integer: true,
      min: 1,
      max: 1000,
      default: 5,
    },
    {
      key: "apiKey",
      label: "API key",
      type: "secret",
      help: "Only if your stock service needs one: it is sent as a bearer token.",
    },
    {
      key: "maxItems",
      label: "Most products per answer",
      type: "number",
      integer: true,
      min: 1,
      max: 10,
      default: 5,
    },
  ],
  async run(config, args, ctx) {
    const product = String(args.product).trim();
    const data = await getJson(`${config.baseUrl}${config.path}`, {
      signal: ctx.signal,
      query: { [config.queryParam]: product },
      bearer: config.apiKey,
    });
    const list = findList(data, ["products", "items", "results", "data"]);
    if (!list) throw new ToolWorldError("The stock service answered in a format we do not understand");
    const products = list.filter(isRecord).filter((p) => typeof firstOf(p, ["name", "title"]) === "string");
    if (products.length === 0) return { query: product, found: 0, products: [] };
    return {
      query: product,
      found: products.length,
      products: products.slice(0, config.maxItems).map((p) => {
        const s = stockOf(p);
        return {
          name: clipText(firstOf(p, ["name", "title"]), 100),
          inStock: s.inStock,
          quantity: bandOf(s.qty, s.inStock, config.lowStock),
          price: priceOf(p, config.currency ?? ""),
        };
      }),
    };
  },

  category: "Shops",
  summary: "Tells visitors whether a product is in stock and its price, from your shop's stock search.",
  promptHint: "Before saying a product is available, call check_stock with the product name.",
  labels: {
    es: "Comprobando el stock",
    fr: "Vérification du stock",
    de: "Prüfe den Lagerbestand",
    ja: "在庫を確認しています",
  },
  example: {
    config: {
      baseUrl: "https://shop.michi.example",
      path: "/api/stock",
      queryParam: "q",
      currency: "EUR",
      lowStock: 5,
      maxItems: 5,
    },
    args: { product: "ceramic pour-over" },
    fixtures: {
      "/api/stock": {
        products: [
          {
            id: 101,
            title: "Ceramic pour-over dripper",
            quantity: 3,
            price: "24.00",
            sku: "CPD-W",
            supplier: "Arita Co.",
          },
          { id: 102, title: "Ceramic pour-over dripper (black)", quantity: 0, price: "24.00", sku: "CPD-B" },
        ],
      },
    },
  },
});

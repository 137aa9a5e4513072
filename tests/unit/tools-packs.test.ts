import { describe, expect, it } from "vitest";
import { createLogger } from "@/lib/log";
import { withFetcher } from "@/lib/security/fetch";
import { configSchema } from "@/lib/tools/config";
import { findPack } from "@/lib/tools/index";
import { definitionFor, runToolCall } from "@/lib/tools/runtime";

// Each built-in pack on a large, realistic upstream payload: what reaches the model is a few fields, the
// rest is gone, and the result stays well inside its budget.

type Canned = Record<string, unknown>;

async function runPack(
  id: string,
  config: Record<string, unknown>,
  args: Record<string, unknown>,
  payloads: Canned,
) {
  const pack = findPack(id)!;
  const parsed = configSchema(pack).parse(config);
  const requests: URL[] = [];
  const bearers: (string | undefined)[] = [];
  const fetcher = {
    async getJson(
      url: string,
      opts?: { query?: Record<string, string | number | undefined>; bearer?: string },
    ) {
      bearers.push(opts?.bearer);
      const u = new URL(url);
      for (const [k, v] of Object.entries(opts?.query ?? {}))
        if (v !== undefined) u.searchParams.set(k, String(v));
      requests.push(u);
      if (!(u.pathname in payloads)) throw new Error(`unexpected request ${u}`);
      return structuredClone(payloads[u.pathname]);
    },
  };
  const record = await withFetcher(fetcher, () =>
    runToolCall({
      call: { id: "c1", name: id, arguments: JSON.stringify(args) },
      enabled: [{ pack, config: parsed, definition: definitionFor(pack, parsed) }],
      ctx: {
        tenantId: "t",
        conversationId: null,
        signal: new AbortController().signal,
        log: createLogger({ write: () => {} }, "silent"),
      },
      timeoutMs: 5000,
      maxChars: 4000,
    }),
  );
  return { record, body: JSON.parse(record.result), requests, bearers };
}

const lorem = (n: number) =>
  "Freshly prepared every morning with seasonal produce from local farms and our own bakery. ".repeat(n);
const size = (v: unknown) => JSON.stringify(v).length;

describe("fetch_json", () => {
  const events = Array.from({ length: 400 }, (_, i) => ({
    id: `ev_${i}`,
    title: `Workshop ${i}`,
    startsAt: `2025-07-${String((i % 28) + 1).padStart(2, "0")}T10:00:00+09:00`,
    description: lorem(20),
    venue: {
      name: i % 2 ? "Terrace" : "Main room",
      internalCode: `R${i}`,
      address: { street: "1-2-3", geo: [35, 135] },
    },
    organiser: { email: `staff${i}@example.com`, phone: "+81 90 0000 0000" },
    tickets: Array.from({ length: 5 }, (_, t) => ({ tier: t, price: 1000 + t, sold: t * 3 })),
    seatsLeft: i % 7,
  }));
  const payload = { generatedAt: "2025-06-01T09:00:00Z", cursor: "abc", events };

  it("keeps only the allowlisted paths and at most maxItems entries", async () => {
    expect(size(payload)).toBeGreaterThan(500_000);
    const { record, body, requests } = await runPack(
      "fetch_json",
      {
        baseUrl: "https://michi-cafe.com",
        path: "/api/events.json",
        fields: ["events[].title", "events[].startsAt", "events[].venue.name", "events[].seatsLeft"],
        maxItems: 10,
        whenToUse: "Events and workshops.",
      },
      {},
      { "/api/events.json": payload },
    );
    expect(record.outcome).toBe("ok");
    expect(requests.map(String)).toEqual(["https://michi-cafe.com/api/events.json"]);
    expect(Object.keys(body)).toEqual(["events"]);
    expect(body.events).toHaveLength(10);
    expect(body.events[0]).toEqual({
      title: "Workshop 0",
      startsAt: "2025-07-01T10:00:00+09:00",
      venue: { name: "Main room" },
      seatsLeft: 0,
    });
    for (const dropped of [
      "description",
      "organiser",
      "internalCode",
      "tickets",
      "staff0@example.com",
      "cursor",
      "geo",
    ]) {
      expect(record.result).not.toContain(dropped);
    }
    expect(record.resultChars).toBeLessThan(1500);
  });

  it("refuses to leak whole objects through a path that stops at one", async () => {
    const { body } = await runPack(
      "fetch_json",
      {
        baseUrl: "https://michi-cafe.com",
        path: "/api/events.json",
        fields: ["events[].organiser", "events[].title"],
        maxItems: 2,
        whenToUse: "x",
      },
      {},
      { "/api/events.json": payload },
    );
    expect(body.events).toEqual([{ title: "Workshop 0" }, { title: "Workshop 1" }]);
  });

  it("reads a payload that is itself a list, and reports none of the fields as a world error", async () => {
    const list = await runPack(
      "fetch_json",
      {
        baseUrl: "https://michi-cafe.com",
        path: "/api/list.json",
        fields: ["[].title"],
        maxItems: 3,
        whenToUse: "x",
      },
      {},
      { "/api/list.json": events },
    );
    expect(list.body).toEqual([{ title: "Workshop 0" }, { title: "Workshop 1" }, { title: "Workshop 2" }]);
    const none = await runPack(
      "fetch_json",
      {
        baseUrl: "https://michi-cafe.com",
        path: "/api/list.json",
        fields: ["nothing.here"],
        maxItems: 3,
        whenToUse: "x",
      },
      {},
      { "/api/list.json": payload },
    );
    expect(none.record.outcome).toBe("error");
    expect(none.body.error).toMatch(/none of the expected fields/);
  });
});

describe("get_opening_status", () => {
  it("returns open and nextChange only", async () => {
    const payload = {
      open: false,
      nextChange: "2025-06-02T08:00:00+09:00",
      weekly: Array.from({ length: 7 }, (_, d) => ({
        day: d,
        slots: [{ opens: "08:00", closes: "18:00" }],
        notes: lorem(5),
      })),
      exceptions: Array.from({ length: 200 }, (_, i) => ({
        date: `2025-${i}`,
        closed: true,
        reason: lorem(2),
      })),
      internalNotes: "alarm code 1234",
    };
    const { record, body } = await runPack(
      "get_opening_status",
      { baseUrl: "https://michi-cafe.com" },
      {},
      { "/api/hours/": payload },
    );
    expect(body).toEqual({ open: false, nextChange: "2025-06-02T08:00:00+09:00" });
    expect(record.result).not.toContain("alarm");
    expect(record.resultChars).toBeLessThan(100);
  });
});

describe("get_business_info", () => {
  const config = {
    address: "1-2-3 Michi Street, Springfield",
    phone: "+1 555 0100",
    email: "hello@michi-cafe.example",
    hours: "Mon–Fri 8:00–18:00",
    policies: `Dogs welcome on the terrace. ${lorem(15)}`.slice(0, 1900),
  };

  it("returns only the part asked for, without any network", async () => {
    const { record, body, requests } = await runPack("get_business_info", config, { topic: "phone" }, {});
    expect(body).toEqual({ phone: "+1 555 0100" });
    expect(requests).toEqual([]);
    expect(record.resultChars).toBeLessThan(60);
  });

  it("returns every part for 'all' and says what the owner left empty", async () => {
    const { body } = await runPack("get_business_info", { ...config, email: "" }, { topic: "all" }, {});
    expect(Object.keys(body)).toEqual(["address", "phone", "email", "hours", "policies"]);
    expect(body.email).toBe("not provided by the business");
  });
});

describe("get_menu", () => {
  const diets = [["vegan"], ["vegetarian"], ["gluten-free", "GF"], [], ["V"], ["dairy-free"]];
  const sections = Array.from({ length: 12 }, (_, s) => ({
    name: s === 3 ? "Matcha bar" : `Section ${s}`,
    image: `https://cdn.example/s${s}.jpg`,
    items: Array.from({ length: 25 }, (_, i) => ({
      id: s * 100 + i,
      sku: `SKU-${s}-${i}`,
      name:
        s === 3 && i < 4 ? `Matcha ${["latte", "soft serve", "tiramisu", "cookie"][i]}` : `Dish ${s}-${i}`,
      price: (5 + i * 0.5).toFixed(2),
      cost: 1.25,
      description: lorem(8),
      tags: diets[(s + i) % diets.length],
      allergens: ["milk", "egg"],
      nutrition: { kcal: 400, protein: 12, fat: 20, carbs: 40 },
      image: `https://cdn.example/${s}/${i}.jpg`,
      available: i !== 24,
    })),
  }));
  const payload = { restaurant: { id: 9, name: "Michi" }, currency: "EUR", sections };
  const config = { baseUrl: "https://michi-cafe.com", path: "/api/menu.json", currency: "EUR", maxItems: 8 };

  it("lists at most maxItems dishes with four short fields each", async () => {
    expect(size(payload)).toBeGreaterThan(200_000);
    const { record, body } = await runPack("get_menu", config, {}, { "/api/menu.json": payload });
    expect(record.outcome).toBe("ok");
    expect(body.items).toHaveLength(8);
    expect(body.matches).toBe(12 * 24);
    for (const item of body.items) {
      expect(Object.keys(item).sort()).toEqual(["description", "dietary", "name", "price"]);
      expect(item.description.length).toBeLessThanOrEqual(120);
      expect(item.price).toMatch(/^\d+\.\d\d EUR$/);
    }
    for (const dropped of ["sku", "SKU-", "cost", "allergens", "kcal", "cdn.example", "restaurant"]) {
      expect(record.result).not.toContain(dropped);
    }
    expect(record.resultChars).toBeLessThan(2000);
  });

  it("filters by diet (vegan dishes count as vegetarian) and by a forgiving word match", async () => {
    const vegan = await runPack("get_menu", config, { dietary: "vegan" }, { "/api/menu.json": payload });
    expect(vegan.body.items.every((i: { dietary: string[] }) => i.dietary.includes("vegan"))).toBe(true);
    const veg = await runPack(
      "get_menu",
      { ...config, maxItems: 20 },
      { dietary: "vegetarian" },
      { "/api/menu.json": payload },
    );
    expect(veg.body.matches).toBeGreaterThan(vegan.body.matches);
    const matcha = await runPack("get_menu", config, { query: "MÁTCHA" }, { "/api/menu.json": payload });
    expect(matcha.body.items.map((i: { name: string }) => i.name)).toEqual(
      expect.arrayContaining(["Matcha latte", "Matcha soft serve", "Matcha tiramisu", "Matcha cookie"]),
    );
  });

  it("rejects an unknown diet before the pack runs", async () => {
    const { record } = await runPack(
      "get_menu",
      config,
      { dietary: "carnivore" },
      { "/api/menu.json": payload },
    );
    expect(record.outcome).toBe("invalid_args");
  });
});

describe("check_stock", () => {
  const products = Array.from({ length: 60 }, (_, i) => ({
    id: 1000 + i,
    title: `Ceramic kettle ${i}`,
    body_html: `<p>${lorem(10)}</p>`,
    vendor: "Arita Co.",
    product_type: "Kitchen",
    tags: "ceramic, kettle, handmade",
    images: [{ src: `https://cdn.example/p/${i}.jpg`, width: 2048 }],
    variants: [
      { id: 1, sku: `KET-${i}-S`, price: "48.00", inventory_quantity: [0, 3, 12, 100][i % 4], weight: 1.2 },
      { id: 2, sku: `KET-${i}-L`, price: "58.00", inventory_quantity: 0, weight: 1.6 },
    ],
  }));

  it("sends the product name only as an encoded query value and bands the quantity", async () => {
    const product = "Ceramic kettle / ../admin?x=1#y";
    const { record, body, requests } = await runPack(
      "check_stock",
      { baseUrl: "https://shop.michi-cafe.com", path: "/api/stock", currency: "EUR" },
      { product },
      { "/api/stock": { products } },
    );
    expect(requests).toHaveLength(1);
    expect(requests[0]!.pathname).toBe("/api/stock");
    expect(requests[0]!.searchParams.get("q")).toBe(product);
    expect(record.outcome).toBe("ok");
    expect(body.found).toBe(60);
    expect(body.products).toHaveLength(5);
    expect(body.products.slice(0, 4).map((p: { quantity: string }) => p.quantity)).toEqual([
      "out of stock",
      "only a few left",
      "in stock",
      "plenty",
    ]);
    expect(body.products[1]).toEqual({
      name: "Ceramic kettle 1",
      inStock: true,
      quantity: "only a few left",
      price: "48.00 EUR",
    });
    for (const dropped of [
      "body_html",
      "vendor",
      "Arita",
      "KET-",
      "cdn.example",
      "inventory_quantity",
      "weight",
    ]) {
      expect(record.result).not.toContain(dropped);
    }
    expect(record.resultChars).toBeLessThan(1000);
  });

  it("sends the saved API key as a bearer credential only, never into the URL or the result", async () => {
    const apiKey = "sk-stock-secret-42";
    const { record, requests, bearers } = await runPack(
      "check_stock",
      { baseUrl: "https://shop.michi-cafe.com", apiKey },
      { product: "kettle" },
      { "/api/stock": { products } },
    );
    expect(bearers).toEqual([apiKey]);
    expect(requests[0]!.toString()).not.toContain(apiKey);
    expect(record.result).not.toContain(apiKey);
    const without = await runPack(
      "check_stock",
      { baseUrl: "https://shop.michi-cafe.com" },
      { product: "x" },
      {
        "/api/stock": { products: [] },
      },
    );
    expect(without.bearers).toEqual([undefined]);
  });

  it("answers an empty search plainly", async () => {
    const { body } = await runPack(
      "check_stock",
      { baseUrl: "https://shop.michi-cafe.com" },
      { product: "unicorn" },
      { "/api/stock": { products: [] } },
    );
    expect(body).toEqual({ query: "unicorn", found: 0, products: [] });
  });
});

describe("get_weather", () => {
  const hours = 168;
  const hourly = Object.fromEntries(
    [
      "temperature_2m",
      "relative_humidity_2m",
      "dew_point_2m",
      "precipitation",
      "cloud_cover",
      "wind_speed_10m",
      "uv_index",
    ].map((k) => [k, Array.from({ length: hours }, (_, i) => Math.round(Math.sin(i) * 100) / 10)]),
  );
  const payload = {
    latitude: 35.0,
    longitude: 135.75,
    generationtime_ms: 0.1,
    utc_offset_seconds: 32400,
    timezone: "Asia/Tokyo",
    elevation: 52,
    current_units: { temperature_2m: "°F" },
    current: {
      time: "2025-06-01T14:00",
      temperature_2m: 75.7,
      apparent_temperature: 77.1,
      weather_code: 61,
      wind_speed_10m: 9.4,
      precipitation: 0.4,
    },
    hourly: { time: Array.from({ length: hours }, (_, i) => `t${i}`), ...hourly },
    daily: {
      time: ["2025-06-01"],
      weather_code: [63],
      temperature_2m_max: [81.3],
      temperature_2m_min: [63.0],
      precipitation_probability_max: [70],
    },
  };

  it("calls the fixed Open-Meteo host for the configured place and returns now and today", async () => {
    expect(size(payload)).toBeGreaterThan(5_000);
    const { record, body, requests } = await runPack(
      "get_weather",
      { placeName: "Kyoto", latitude: 35.0116, longitude: 135.7681, units: "fahrenheit" },
      {},
      { "/v1/forecast": payload },
    );
    expect(requests[0]!.origin).toBe("https://api.open-meteo.com");
    expect(requests[0]!.searchParams.get("latitude")).toBe("35.0116");
    expect(requests[0]!.searchParams.get("temperature_unit")).toBe("fahrenheit");
    expect(body).toEqual({
      place: "Kyoto",
      unit: "°F",
      now: {
        temperature: 75.7,
        feelsLike: 77.1,
        conditions: "light rain",
        windKmh: 9.4,
        precipitationMm: 0.4,
      },
      today: { min: 63, max: 81.3, conditions: "rain", chanceOfRainPercent: 70 },
    });
    expect(record.result).not.toContain("hourly");
    expect(record.resultChars).toBeLessThan(400);
  });
});

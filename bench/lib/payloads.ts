// The JSON a tenant's site serves in the benchmarks, generated deterministically (same bytes on every run and
// every machine) so token ratios are comparable across runs.

/** mulberry32: a tiny seeded PRNG; Math.random would make every run's payload different. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CATEGORIES = ["Running shoes", "Trail shoes", "Jackets", "Base layers", "Socks", "Backpacks", "Tents"];
const BRANDS = ["Northpeak", "Kumo", "Alder & Ash", "Sendero", "Fjellsport", "Mizu"];
const COLOURS = ["black", "slate", "forest", "ember", "sand", "ocean", "plum"];
const MATERIALS = ["recycled polyester", "merino wool", "ripstop nylon", "organic cotton", "EVA foam"];
const WORDS =
  "light breathable durable waterproof cushioned grippy packable warm quick-drying reflective supportive roomy".split(
    " ",
  );

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)]!;
}

function sentence(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(pick(r, WORDS));
  const s = out.join(" ");
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

/** A shop's product feed of about `targetBytes` of compact JSON, the shape a typical e-commerce API returns. */
export function productCatalogue(targetBytes = 200_000) {
  const r = rng(42);
  const products: Record<string, unknown>[] = [];
  const base = Date.UTC(2025, 0, 1);
  const doc = {
    store: { id: "st_1042", name: "Trailhead Outfitters", locale: "en-GB", currency: "GBP" },
    generatedAt: "2025-06-01T09:00:00Z",
    pagination: { page: 1, perPage: 0, total: 0 },
    products,
  };
  for (let i = 1; JSON.stringify(doc).length < targetBytes; i++) {
    const category = pick(r, CATEGORIES);
    const brand = pick(r, BRANDS);
    const price = Math.round((15 + r() * 220) * 100) / 100;
    const name = `${brand} ${pick(r, WORDS)} ${category.toLowerCase().replace(/s$/, "")} ${i}`;
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    products.push({
      id: `prod_${10_000 + i}`,
      sku: `TH-${(100_000 + i * 37).toString(36).toUpperCase()}`,
      name,
      slug,
      url: `https://trailhead.example/p/${slug}`,
      brand,
      category,
      description: [sentence(r, 14), sentence(r, 12), sentence(r, 10)].join(" "),
      price,
      compareAtPrice: r() < 0.3 ? Math.round(price * 1.25 * 100) / 100 : null,
      currency: "GBP",
      inStock: r() > 0.2,
      stockLevel: Math.floor(r() * 60),
      rating: Math.round((3 + r() * 2) * 10) / 10,
      reviewCount: Math.floor(r() * 400),
      tags: [pick(r, WORDS), pick(r, WORDS), category.toLowerCase()],
      variants: Array.from({ length: 2 + Math.floor(r() * 3) }, (_, v) => ({
        sku: `TH-${i}-${v}`,
        size: ["XS", "S", "M", "L", "XL"][v % 5],
        colour: pick(r, COLOURS),
        stock: Math.floor(r() * 20),
        barcode: String(5_000_000_000_000 + i * 100 + v),
      })),
      images: [
        { url: `https://cdn.trailhead.example/img/${slug}-1.jpg`, alt: name, width: 1200, height: 1200 },
        {
          url: `https://cdn.trailhead.example/img/${slug}-2.jpg`,
          alt: `${name} detail`,
          width: 1200,
          height: 1200,
        },
      ],
      attributes: { material: pick(r, MATERIALS), weightGrams: 150 + Math.floor(r() * 900) },
      seo: { title: `${name} | Trailhead`, description: sentence(r, 16) },
      warehouse: {
        bin: `A${Math.floor(r() * 40)}-${Math.floor(r() * 9)}`,
        supplierId: `sup_${Math.floor(r() * 90)}`,
      },
      createdAt: new Date(base + i * 86_400_000).toISOString(),
      updatedAt: new Date(base + i * 86_400_000 + 3_600_000).toISOString(),
    });
  }
  doc.pagination.perPage = products.length;
  doc.pagination.total = products.length;
  return doc;
}

/** The fields a shop owner would list in fetch_json for "what do you have in stock?". */
export const CATALOGUE_FIELDS = [
  "products[].name",
  "products[].price",
  "products[].currency",
  "products[].inStock",
  "products[].category",
  "products[].url",
];

/** A small events feed: the per-turn tool call of the chat overhead benchmark. */
export function eventsFeed() {
  return {
    generatedAt: "2025-06-01T09:00:00Z",
    events: Array.from({ length: 8 }, (_, i) => ({
      id: `ev_${i + 1}`,
      title: ["Latte art workshop", "Coffee tasting", "Open mic", "Book club"][i % 4],
      startsAt: new Date(Date.UTC(2025, 5, 7 + i, 10)).toISOString(),
      venue: { name: i % 2 ? "Terrace" : "Main room", internalCode: `R${i}` },
      seatsLeft: (i * 3) % 7,
      organiserEmail: "staff@example.com",
    })),
  };
}

export const EVENTS_FIELDS = [
  "events[].title",
  "events[].startsAt",
  "events[].venue.name",
  "events[].seatsLeft",
];

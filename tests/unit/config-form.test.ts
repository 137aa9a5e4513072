import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ConfigFields } from "@/components/config-form/ConfigFields";
import { CLEAR_SUFFIX, validatePackConfig } from "@/lib/tools/config";
import type { ConfigField } from "@/lib/tools/contract";
import {
  clientFields,
  configToValues,
  errorsByField,
  fieldName,
  formatSetOn,
  readSubmission,
  secretClearName,
  secretInput,
  secretStates,
  toValidatorInput,
} from "@/lib/tools/form-data";
import { fetchJson } from "@/lib/tools/packs/fetch-json";

// A pack-shaped field list covering every field type, as an operator's own pack might declare it.
const FIELDS = [
  { key: "name", label: "Shop name", type: "text", required: true, help: "As on your sign." },
  { key: "notes", label: "Notes", type: "textarea" },
  { key: "baseUrl", label: "Base URL", type: "url", required: true },
  { key: "apiKey", label: "API key", type: "secret" },
  { key: "limit", label: "Limit", type: "number", integer: true, min: 1, max: 20, default: 5 },
  { key: "vegan", label: "Vegan only", type: "boolean", default: false },
  {
    key: "unit",
    label: "Unit",
    type: "select",
    required: true,
    options: [
      { value: "c", label: "Celsius" },
      { value: "f", label: "Fahrenheit" },
    ],
  },
  { key: "tags", label: "Tags", type: "list", maxItems: 3, itemPattern: /^[a-z]+$/ },
  { key: "path", label: "Path", type: "path", default: "/api/menu.json" },
] as const satisfies readonly ConfigField[];

function form(entries: Record<string, string>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(entries)) fd.append(k, v);
  return fd;
}

describe("FormData → validator input", () => {
  it("maps each field type to the value shape the validator expects", () => {
    const s = readSubmission(
      FIELDS,
      form({
        [fieldName("name")]: "  Michi Café ",
        [fieldName("notes")]: "line one\nline two",
        [fieldName("baseUrl")]: " https://michi.example ",
        [fieldName("limit")]: "7",
        [fieldName("vegan")]: "true",
        [fieldName("unit")]: "f",
        [fieldName("tags")]: "cake\n\n  tea \n",
        [fieldName("path")]: "/api/x.json",
        packId: "ignored",
      }),
    );
    expect(toValidatorInput(FIELDS, s)).toEqual({
      name: "Michi Café",
      notes: "line one\nline two",
      baseUrl: "https://michi.example",
      limit: 7,
      vegan: true,
      unit: "f",
      tags: ["cake", "tea"],
      path: "/api/x.json",
    });
  });

  it("leaves blank optional values out, an unchecked box false, and a non-number as typed for the validator", () => {
    const s = readSubmission(FIELDS, form({ [fieldName("limit")]: "seven", [fieldName("notes")]: "   " }));
    const input = toValidatorInput(FIELDS, s);
    expect(input).toEqual({ limit: "seven", vegan: false, tags: [] });
  });

  it("reads a secret as keep (empty), replace (typed) or clear (marker without a value)", () => {
    const keep = readSubmission(FIELDS, form({ [fieldName("apiKey")]: "" }));
    const replace = readSubmission(FIELDS, form({ [fieldName("apiKey")]: "sk-new" }));
    const clear = readSubmission(FIELDS, form({ [secretClearName("apiKey")]: "1" }));
    const typedWins = readSubmission(
      FIELDS,
      form({ [fieldName("apiKey")]: "sk-2", [secretClearName("apiKey")]: "1" }),
    );
    expect(keep.secrets.apiKey).toEqual({ kind: "keep" });
    expect(replace.secrets.apiKey).toEqual({ kind: "replace", value: "sk-new" });
    expect(clear.secrets.apiKey).toEqual({ kind: "clear" });
    expect(typedWins.secrets.apiKey).toEqual({ kind: "replace", value: "sk-2" });
    // A typed secret is never among the values that may be echoed to the browser.
    expect(JSON.stringify(replace.values)).not.toContain("sk-new");
    expect(secretInput(replace.secrets, CLEAR_SUFFIX)).toEqual({ apiKey: "sk-new" });
    expect(secretInput(clear.secrets, CLEAR_SUFFIX)).toEqual({ [`apiKey${CLEAR_SUFFIX}`]: true });
    expect(secretInput(keep.secrets, CLEAR_SUFFIX)).toEqual({});
  });

  it("feeds the real validator: fetch_json's form round-trips into a stored config", async () => {
    const stored = {
      baseUrl: "https://michi.example",
      path: "/api/events.json",
      fields: ["events[].title", "events[].startsAt"],
      maxItems: 4,
      whenToUse: "Upcoming events.",
    };
    const fd = new FormData();
    for (const [k, v] of Object.entries(configToValues(fetchJson.configFields, stored)))
      fd.append(fieldName(k), v);
    const s = readSubmission(fetchJson.configFields, fd);
    const r = await validatePackConfig(fetchJson, toValidatorInput(fetchJson.configFields, s), {
      siteDomains: ["michi.example"],
      existingSecrets: {},
      tenantId: "00000000-0000-0000-0000-000000000001",
      allowHosts: [],
      lookup: async () => [{ address: "93.184.216.34", family: 4 }],
    });
    expect(r).toEqual({ ok: true, config: stored, secretsSet: {}, secretsClear: [] });
  });
});

describe("stored config → what the inputs show", () => {
  it("uses the stored value, else the default, and never a secret", () => {
    const values = configToValues(FIELDS, {
      name: "Shop",
      tags: ["a", "b"],
      vegan: true,
      limit: 12,
      apiKey: "x",
    });
    expect(values).toEqual({
      name: "Shop",
      notes: "",
      baseUrl: "",
      limit: "12",
      vegan: "true",
      unit: "",
      tags: "a\nb",
      path: "/api/menu.json",
    });
    expect(configToValues(FIELDS, null).limit).toBe("5");
  });

  it("reduces sealed secrets to set / set-on, dropping ciphertext", () => {
    const sealed = {
      apiKey: { kid: "k1", iv: "aXY=", ct: "Y2lwaGVy", tag: "dGFn", setAt: "2025-05-03T10:00:00.000Z" },
    };
    expect(secretStates(FIELDS, sealed)).toEqual({
      apiKey: { set: true, setAt: "2025-05-03T10:00:00.000Z" },
    });
    expect(secretStates(FIELDS, {})).toEqual({ apiKey: { set: false, setAt: null } });
    expect(formatSetOn("2025-05-03T23:30:00.000Z")).toBe("Set on 3 May 2025");
    // Already the 4th in Tokyo: the day is the business's, not the server's.
    expect(formatSetOn("2025-05-03T23:30:00.000Z", "Asia/Tokyo")).toBe("Set on 4 May 2025");
  });

  it("folds nested error paths onto their field and keeps the rest apart", () => {
    expect(errorsByField(FIELDS, { "tags.1": "bad tag", "cfg.name": "Enter text", _form: "Oops" })).toEqual({
      byField: { tags: "bad tag", name: "Enter text" },
      other: ["Oops"],
    });
  });

  it("hands client components plain data only: patterns stay on the server", () => {
    const plain = clientFields(FIELDS);
    expect(JSON.parse(JSON.stringify(plain))).toEqual(plain);
    const tags = plain.find((f) => f.key === "tags")!;
    expect(Object.keys(tags)).not.toContain("itemPattern");
    expect(plain.map((f) => [f.key, f.type])).toEqual(FIELDS.map((f) => [f.key, f.type]));
    expect(plain.find((f) => f.key === "unit")).toMatchObject({ options: FIELDS[6].options, required: true });
  });
});

describe("the renderer", () => {
  const render = (props: Partial<Parameters<typeof ConfigFields>[0]> = {}) =>
    renderToStaticMarkup(
      createElement(ConfigFields, {
        idPrefix: "p",
        fields: clientFields(FIELDS),
        values: configToValues(FIELDS, { name: "Michi", unit: "c", tags: ["cake"] }),
        secrets: { apiKey: { set: false, setAt: null } },
        ...props,
      }),
    );

  it("labels every input and wires help and errors for screen readers", () => {
    const html = render({ errors: { baseUrl: "URLs must start with https://" } });
    for (const f of FIELDS) expect(html).toContain(`for="p-${f.key}"`);
    for (const f of FIELDS) expect(html).toContain(`id="p-${f.key}"`);
    expect(html).toMatch(/id="p-baseUrl"[^>]*aria-invalid="true"/);
    expect(html).toMatch(/id="p-baseUrl"[^>]*aria-describedby="p-baseUrl-error"/);
    expect(html).toContain('<p id="p-baseUrl-error" class="field-error">URLs must start with https://</p>');
    expect(html).toMatch(/id="p-name"[^>]*aria-describedby="p-name-help"/);
    expect(html).not.toMatch(/id="p-name"[^>]*aria-invalid/);
  });

  it("shows stored values and every field type's control", () => {
    const html = render();
    expect(html).toMatch(/name="cfg.name"[^>]*value="Michi"/);
    expect(html).toMatch(/<select[^>]*name="cfg.unit"/);
    expect(html).toContain('<option value="c" selected="">Celsius</option>');
    expect(html).toMatch(/<textarea[^>]*name="cfg.tags"[^>]*>cake<\/textarea>/);
    expect(html).toMatch(/type="checkbox"[^>]*name="cfg.vegan"|name="cfg.vegan"[^>]*type="checkbox"/);
    expect(html).toMatch(/name="cfg.apiKey"[^>]*type="password"|type="password"[^>]*name="cfg.apiKey"/);
    expect(html).toContain("One per line. Up to 3.");
    expect(html).toContain("From 1 to 20.");
  });

  it("shows a stored secret as 'Set on <date>' with Replace and Clear, and no input carrying it", () => {
    const html = render({ secrets: { apiKey: { set: true, setAt: "2025-05-03T10:00:00.000Z" } } });
    expect(html).toContain("Set on 3 May 2025");
    expect(html).toContain(">Replace</button>");
    expect(html).toContain(">Clear</button>");
    expect(html).not.toContain('name="cfg.apiKey"');
  });

  it("renders read-only for viewers: everything disabled, no Replace or Clear", () => {
    const html = render({ readOnly: true, secrets: { apiKey: { set: true, setAt: null } } });
    expect(html).toMatch(/^<fieldset disabled=""/);
    expect(html).not.toContain(">Replace</button>");
    expect(html).not.toContain(">Clear</button>");
  });
});

describe("small things the admin notices", () => {
  const render = (fields: readonly ConfigField[], values: Record<string, string> = {}) =>
    renderToStaticMarkup(
      createElement(ConfigFields, { idPrefix: "p", fields, values, secrets: {}, readOnly: false }),
    );

  it("a select with a default offers no empty Choose… entry; one with nothing chosen does", () => {
    const options = [
      { value: "celsius", label: "Celsius" },
      { value: "fahrenheit", label: "Fahrenheit" },
    ];
    const withDefault = render([{ key: "u", label: "Unit", type: "select", options, default: "celsius" }], {
      u: "celsius",
    });
    expect(withDefault).not.toContain("Choose…");
    const empty = render([{ key: "u", label: "Unit", type: "select", required: true, options }], { u: "" });
    expect(empty).toContain("Choose…");
  });

  it("a secret whose help already promises encryption does not say it twice", () => {
    const html = render([
      { key: "k", label: "Key", type: "secret", help: "Sent as a bearer token, encrypted at rest." },
    ]);
    expect(html.match(/encrypt/gi)).toHaveLength(1);
    const plain = render([{ key: "k", label: "Key", type: "secret" }]);
    expect(plain).toContain("Stored encrypted and never shown again.");
  });

  it("text inputs have no maxlength (the server refuses instead of the browser cutting)", () => {
    const html = render([{ key: "w", label: "When", type: "text", maxLength: 300 }]);
    expect(html).not.toContain("maxLength");
    expect(html).not.toContain("maxlength");
  });
});

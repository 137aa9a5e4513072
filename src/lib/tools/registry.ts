import "server-only";

// What a pack file imports, by the path the tool-pack contract names (docs/tool-packs.md):
// `import { getJson, type ToolPack } from "./registry"`. The contract's types are in contract.ts; the list of
// registered packs is index.ts.

export * from "./contract";

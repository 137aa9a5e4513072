import "server-only";

// What a pack file imports, by the path the tool-pack contract names (docs/tool-packs.md):
// `import { getJson, type ToolPack } from "./registry"`. This file is only that path: the contract's types
// are in contract.ts, and the packs the platform offers are the pack list, ALL_PACKS in index.ts, whose
// rules check.ts holds. It cannot hold the list itself, since every pack imports it.

export * from "./contract";

export * from "./chat";
export * from "./core";
export * from "./tools";
export * from "./webhooks";

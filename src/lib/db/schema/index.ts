export * from "./chat";
export * from "./core";
export * from "./feedback";
export * from "./leads";
export * from "./mail";
export * from "./notices";
export * from "./tools";
export * from "./webhooks";

export * from "./chat";
export * from "./core";
export * from "./handoff";
export * from "./mail";
export * from "./notices";
export * from "./tools";
export * from "./webhooks";

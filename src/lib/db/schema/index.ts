export * from "./chat";
export * from "./core";
export * from "./handoff";
export * from "./knowledge";
export * from "./mail";
export * from "./tools";
export * from "./webhooks";

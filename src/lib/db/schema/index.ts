export * from "./chat";
export * from "./core";
export * from "./mail";
export * from "./tools";
export * from "./webhooks";

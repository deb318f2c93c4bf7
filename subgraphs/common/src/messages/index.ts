export * from "./message-outbox";
export * from "./settings";
export * from "./transport";
export * from "./undeliverable";

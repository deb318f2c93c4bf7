export * from "./outbox.repository";
export * from "./outbox-publisher";

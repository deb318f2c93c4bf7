import type { MessageBus } from "./bus";
import { memoryBus } from "./memory-bus";
import { natsBus } from "./nats-bus";

export * from "./bus";
export * from "./memory-bus";
export * from "./nats-bus";

export type MessagingConfig = { driver: "memory" } | { driver: "nats"; url: string; namespace?: string };

/** The bus the configuration names: in memory (one process) or NATS JetStream (any number of processes). */
export function openMessageBus(config: MessagingConfig): Promise<MessageBus> {
  return config.driver === "nats" ? natsBus(config) : Promise.resolve(memoryBus());
}

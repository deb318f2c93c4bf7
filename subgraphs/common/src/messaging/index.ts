import type { MessageBus } from "./bus";
import { memoryBus } from "./memory-bus";
import { natsBus } from "./nats-bus";
import { tracedBus } from "./traced-bus";

export * from "./bus";
export * from "./memory-bus";
export * from "./nats-bus";
export * from "./traced-bus";

export type MessagingConfig = { driver: "memory" } | { driver: "nats"; url: string; namespace?: string };

/**
 * The bus the configuration names: in memory (one process) or NATS JetStream (any number of processes), its
 * consumers traced.
 */
export async function openMessageBus(config: MessagingConfig): Promise<MessageBus> {
  return tracedBus(config.driver === "nats" ? await natsBus(config) : memoryBus());
}

import { logger } from "../logger";
import { apartFromTransaction } from "../transaction-scope";
import { type BusEvent, type BusSubscription, type MessageBus, redeliveryDelayMs, type Topic } from "./bus";

interface Group {
  queue: BusEvent[];
  handlers: ((event: BusEvent) => Promise<void>)[];
  next: number;
  draining: boolean;
  /** The handler call under way, which a member's `stop` waits for: its work is not cut off by what stops next. */
  handling?: Promise<void>;
}

/**
 * The embedded bus, in this process: a group's events wait in memory for its members and are handed out one at a
 * time in publish order, round robin; a failed handler gets the same event again after a pause. Nothing survives the
 * process, which is why events are only ever taken from the outbox: a restart publishes again what was not marked.
 */
export function memoryBus(): MessageBus {
  const groups = new Map<string, Group>();
  const listeners = new Map<Topic, Set<(event: BusEvent) => void>>();
  let closed = false;

  const groupOf = (topic: Topic, name: string) => {
    const key = `${topic}\u0000${name}`;
    let group = groups.get(key);
    if (!group) {
      group = { queue: [], handlers: [], next: 0, draining: false };
      groups.set(key, group);
    }
    return group;
  };

  async function drain(group: Group) {
    if (group.draining) return;
    group.draining = true;
    try {
      let attempt = 0;
      while (!closed && group.queue.length > 0 && group.handlers.length > 0) {
        const handler = group.handlers[group.next++ % group.handlers.length]!;
        const event = group.queue[0]!;
        try {
          group.handling = handler(event);
          await group.handling;
          group.queue.shift();
          attempt = 0;
        } catch (error) {
          logger.warn("event handler failed; the event is given again", { event_id: event.id, error });
          await new Promise((resolve) => setTimeout(resolve, redeliveryDelayMs(attempt++)));
        }
      }
    } finally {
      group.draining = false;
    }
  }

  return {
    driver: "memory",
    async publish(topic, event) {
      if (closed) throw new Error("the message bus is closed");
      for (const [key, group] of groups) {
        if (!key.startsWith(`${topic}\u0000`)) continue;
        group.queue.push(event);
        // Delivered on its own, as a broker would: not inside the publisher's transaction.
        void apartFromTransaction(() => drain(group));
      }
      for (const listener of listeners.get(topic) ?? []) {
        try {
          apartFromTransaction(() => listener(event));
        } catch (error) {
          logger.warn("event listener failed", { event_id: event.id, error });
        }
      }
    },
    async consume(topic, name, handle): Promise<BusSubscription> {
      const group = groupOf(topic, name);
      group.handlers.push(handle);
      void drain(group);
      return {
        stop: async () => {
          group.handlers = group.handlers.filter((each) => each !== handle);
          await group.handling?.catch(() => undefined);
        },
      };
    },
    async listen(topic, handle): Promise<BusSubscription> {
      const set = listeners.get(topic) ?? new Set();
      listeners.set(topic, set);
      set.add(handle);
      return { stop: async () => void set.delete(handle) };
    },
    connected: () => !closed,
    async ping() {
      if (closed) throw new Error("the message bus is closed");
    },
    async close() {
      closed = true;
      listeners.clear();
    },
  };
}

import type { BusEvent, MessageBus } from "@pos-cloud/common/messaging";
import { metrics } from "@pos-cloud/common/metrics";
import { Repeater } from "@repeaterjs/repeater";
import type { FormattedExecutionResult } from "graphql";
import { Gauge } from "prom-client";
import { storeOfEvent } from "./store-events";

/** Subscriptions being served by this process, per root field. */
const active = new Gauge({
  name: "pgw_subscriptions_active",
  help: "graphql-ws subscriptions this edge process serves, by root field.",
  labelNames: ["field"] as const,
  registers: [metrics],
});

/** The connection a feed serves: whether its token still holds, asked before each message, and its end when not. */
interface FeedConnection {
  stillValid: () => boolean;
  closeExpired: () => void;
}

/** One message (or none) for an event of the feed's key; answers false when the feed ends. */
type FeedStep = (
  event: BusEvent | undefined,
  push: (result: FormattedExecutionResult) => Promise<unknown>,
) => Promise<boolean>;

export type Feed = Awaited<ReturnType<typeof eventFeeds>>["feed"];

/**
 * The events of the bus's internal topic by intent (`intent:<id>`) and by store (`store:<id>`), from one listener for
 * the whole edge, as feeds of subscription messages.
 */
export async function eventFeeds(bus: MessageBus) {
  const watchers = new Map<string, Set<(event: BusEvent) => void>>();
  const listening = await bus.listen("events.internal", (event) => {
    const store = storeOfEvent(event);
    const keys = event.aggregate_type === "payment_intent" ? [`intent:${event.aggregate_id}`] : [];
    if (store !== undefined) keys.push(`store:${store}`);
    for (const key of keys) for (const changed of watchers.get(key) ?? []) changed(event);
  });

  function watch(key: string, changed: (event: BusEvent) => void) {
    const set = watchers.get(key) ?? new Set();
    watchers.set(key, set.add(changed));
    return () => {
      set.delete(changed);
      if (set.size === 0) watchers.delete(key);
    };
  }

  /**
   * Runs `step` for each event of `key` in order, until it answers false, the client leaves or the token expires. A
   * `state` feed steps once at the start (no event) and once per batch of events that came while it was busy.
   * Watching starts before that first step, so no event after it is missed; the client's complete or a closed socket
   * stops it at once, even while it waits for an event.
   */
  const feed = (field: string, key: string, connection: FeedConnection, step: FeedStep, state: boolean) =>
    new Repeater<FormattedExecutionResult>(async (push, stop) => {
      const queue: (BusEvent | undefined)[] = state ? [undefined] : [];
      let wake = () => {};
      let stopped = false;
      const unwatch = watch(key, (event) => {
        queue.push(event);
        wake();
      });
      active.inc({ field });
      stop.then(() => {
        stopped = true;
        wake();
      });
      try {
        for (;;) {
          if (queue.length === 0 && !stopped) {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
          if (stopped) return;
          const event = state ? queue.splice(0).at(-1) : queue.shift();
          if (!connection.stillValid()) return connection.closeExpired();
          if (!(await step(event, push))) return;
        }
      } finally {
        unwatch();
        active.dec({ field });
        stop();
      }
    });

  return { feed, close: () => listening.stop() };
}

/**
 * The message bus between the platform's processes: the outbox publisher puts published events on it; the partner
 * webhook dispatcher, the terminals' subscriptions and the POS service read them. `memory` when embedded (one
 * process), NATS JetStream in cluster mode (`MESSAGING_DRIVER=nats`); both keep the semantics below.
 */

/** The internal topic carries every published event; the webhook-delivery queue only terminal-state intent events. */
export type Topic = "events.internal" | "webhooks.delivery";

/** One published outbox event, as it travels. `id` is the outbox row's ULID: consumers deduplicate by it. */
export interface BusEvent {
  id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: Record<string, unknown>;
  created_at: string;
  /** The W3C trace context of the publish (absent while tracing is off): consumers continue the change's trace. */
  traceparent?: string | null;
}

export interface BusSubscription {
  stop(): Promise<void>;
}

export interface MessageBus {
  /** Which engine carries the events: readiness names the check after it. */
  readonly driver: "memory" | "nats";
  /** Resolves once the bus holds the event (NATS: the stream acknowledged it), so the publisher may mark it published. */
  publish(topic: Topic, event: BusEvent): Promise<void>;
  /**
   * A durable consumer group: each event goes to one member of `group`, an aggregate's events in publish order (its
   * next one only once `handle` resolved for it; other aggregates' may be handled meanwhile, NATS), and is given
   * again (at least once) until `handle` resolves; events published while no member runs wait for the group.
   */
  consume(topic: Topic, group: string, handle: (event: BusEvent) => Promise<void>): Promise<BusSubscription>;
  /** Every listener gets every event published from now on, nothing durable: for fan-out such as subscriptions. */
  listen(topic: Topic, handle: (event: BusEvent) => void): Promise<BusSubscription>;
  /** Resolves while the bus can take events now (NATS: the server answered a ping); rejects once it is closed. */
  ping(): Promise<void>;
  /**
   * Whether the bus is connected as far as this process knows, without asking the server (NATS: not between a lost
   * connection and the reconnection): the outbox claims nothing while it is not.
   */
  connected(): boolean;
  close(): Promise<void>;
}

/** Pause before an event whose handler failed is given again (`attempt` from 0), doubling up to 30 s. */
export const redeliveryDelayMs = (attempt: number) => Math.min(30_000, 250 * 2 ** attempt);

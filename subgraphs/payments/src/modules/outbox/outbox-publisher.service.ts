import type { MessageBus, Topic } from "@pos-cloud/common/messaging";
import { outboxPublisher as publisher } from "@pos-cloud/common/outbox";
import type { Clock } from "../../clock";
import { partnerEventTypes } from "../webhooks";
import type { OutboxRepository } from "./outbox.repository";

export { type OutboxPublisher, POLL_INTERVAL_MS, RETENTION_MS } from "@pos-cloud/common/outbox";

/** Partners hear of an intent's terminal states and of their keys' expiry only; everything goes to the internal topic. */
export const topicsOf = (event_type: string): Topic[] =>
  partnerEventTypes.has(event_type) ? ["events.internal", "webhooks.delivery"] : ["events.internal"];

/** The gateway's publisher: the shared one, with the partner-bound topic and the gateway's outbox metrics. */
export const outboxPublisher = (deps: { outbox: OutboxRepository; bus: MessageBus; clock: Clock }) =>
  publisher({ ...deps, topicsOf, metrics: true });

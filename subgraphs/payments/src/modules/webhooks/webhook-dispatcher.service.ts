import { currentTraceparent, inSpan, logger, SpanKind, traceContextOf } from "@pos-cloud/common";
import type { Job } from "@pos-cloud/common/jobs";
import type { BusEvent, MessageBus } from "@pos-cloud/common/messaging";
import { countOutcome, nextAttempt, type RetryPolicy, retryPolicies } from "@pos-cloud/common/tasks";
import { CLAIM_LEASE_MS } from "../../claims";
import type { Clock } from "../../clock";
import type { PartnerWebhookDelivery } from "../../generated/prisma/client";
import type { PartnerService } from "../partners";
import { webhookMetrics } from "./webhook.metrics";
import type { AttemptRecord, WebhookDeliveryRepository } from "./webhook-delivery.repository";
import { partnerEvent, partnerEventTypes, webhookBody } from "./webhook-event.presenter";
import { partnerEventId } from "./webhook-recovery.service";
import { type AttemptResult, sendWebhook, signedHeaders } from "./webhook-sender.client";

export type WebhookDispatcher = ReturnType<typeof webhookDispatcher>;

export interface WebhookDeliverySettings {
  /** Pauses after failed attempts, instead of the `webhook_delivery` retry policy's. */
  retryDelaysMs?: number[];
  /** A partner that has not answered by then has failed the attempt. */
  timeoutMs?: number;
  /** Attempts under way at once in this process, and at once for one client_id (a slow partner holds no more). */
  concurrency?: number;
  perKeyConcurrency?: number;
  /** Between looks for due retries (and for deliveries other instances enqueued). */
  pollIntervalMs?: number;
  /** Posts to loopback, private and link-local addresses and over plain http: a developer's own receiver. */
  allowPrivateUrls?: boolean;
}

const metricStatus = { deliver: "delivered", retry: "retried", give_up: "dead_lettered" } as const;
const taskOutcome = { deliver: "done", retry: "retried", give_up: "dead" } as const;

interface DispatcherDeps {
  deliveries: WebhookDeliveryRepository;
  partners: PartnerService;
  clock: Clock;
  /** A key's endpoint answered 2xx (its automatic redelivery may queue its dead letters). */
  onDelivered?: (client_id: string) => Promise<void>;
}

/** Records one delivery of a partner-bound event per client_id of its partner with a webhook; false when none. */
async function enqueueDeliveries({ deliveries, partners, clock }: DispatcherDeps, event: BusEvent): Promise<boolean> {
  if (!partnerEventTypes.has(event.event_type)) return false;
  const { client_partner_id } = partnerEvent(event);
  const targets = await partners.webhookTargets(client_partner_id);
  if (targets.length === 0) return false;
  const parsed = Date.parse(event.created_at);
  const time = Number.isNaN(parsed) ? clock().getTime() : parsed;
  const rows = targets.map(({ client_id }) => {
    const id = partnerEventId(event.id, client_id, time);
    return {
      id,
      source_event_id: event.id,
      client_partner_id,
      client_id,
      event_type: event.event_type,
      body: webhookBody(id, event),
      traceparent: currentTraceparent(),
    };
  });
  await deliveries.enqueue(rows, clock());
  return true;
}

function recordOf(row: PartnerWebhookDelivery, result: AttemptResult, now: Date, policy: RetryPolicy): AttemptRecord {
  if (result.delivered) return { event: "deliver", status_code: result.status ?? 200 };
  const failure = { status_code: result.status ?? null, error: result.error ?? "failed" };
  const next = nextAttempt(policy, row.attempts + 1, now);
  if (next === null) return { event: "give_up", ...failure };
  return { event: "retry", next_attempt_at: next.at, ...failure };
}

/**
 * Posts due deliveries, claimed in the database, with at most `concurrency` attempts under way in this process and
 * `perKeyConcurrency` for one client_id; `wake` is called as each attempt ends, to claim the next.
 */
function deliveryAttempts(deps: DispatcherDeps, settings: WebhookDeliverySettings, wake: () => void) {
  const { deliveries, partners, clock } = deps;
  const policy: RetryPolicy = settings.retryDelaysMs
    ? { delaysMs: settings.retryDelaysMs, thenMs: "dead" }
    : retryPolicies.webhook_delivery;
  const { timeoutMs = 10_000, concurrency = 16, perKeyConcurrency = 4, allowPrivateUrls = false } = settings;
  const inFlight = new Set<Promise<void>>();
  const perKey = new Map<string, number>();

  /** One attempt, in a span of the trace of the event it tells of. */
  const attempt = (row: PartnerWebhookDelivery) =>
    inSpan(
      "partner webhook delivery",
      {
        kind: SpanKind.CLIENT,
        parent: traceContextOf(row.traceparent),
        attributes: { "webhook.delivery.id": row.id, "webhook.event_type": row.event_type, attempt: row.attempts + 1 },
      },
      () => post(row),
    );

  async function post(row: PartnerWebhookDelivery): Promise<void> {
    const target = await partners.webhookTarget(row.client_id);
    if (!target || target.client_partner_id !== row.client_partner_id) {
      await deliveries.drop(row.id, clock());
      return;
    }
    const message = { id: row.id, body: row.body, timestamp: clock() };
    const started = performance.now();
    const result = await sendWebhook(target.webhook_url, signedHeaders(message, target.secrets), row.body, {
      timeoutMs,
      allowPrivate: allowPrivateUrls,
    });
    const latencyMs = performance.now() - started;
    webhookMetrics.latency.observe({ api_key_id: row.client_id }, latencyMs / 1000);
    const now = clock();
    const record = recordOf(row, result, now, policy);
    webhookMetrics.deliveries.inc({ api_key_id: row.client_id, status: metricStatus[record.event] });
    const recorded = await deliveries.recordAttempt(row, record, now, Math.round(latencyMs));
    if (recorded) countOutcome("webhook_delivery", taskOutcome[record.event]);
    if (recorded && record.event === "deliver") await deps.onDelivered?.(row.client_id);
    if (record.event === "give_up") {
      logger.warn("partner webhook dead-lettered", { id: row.id, client_id: row.client_id, error: record.error });
    }
  }

  /** Claims what is due, up to the free slots and per-key limits, and starts the attempts; returns them. */
  async function claimAndStart(): Promise<Promise<void>[]> {
    const free = concurrency - inFlight.size;
    if (free <= 0) return [];
    const now = clock();
    const full = [...perKey].filter(([, running]) => running >= perKeyConcurrency).map(([clientId]) => clientId);
    const rows = await deliveries.claimDue(now, free, new Date(now.getTime() + CLAIM_LEASE_MS), full);
    const started: Promise<void>[] = [];
    const giveBack: typeof rows = [];
    for (const row of rows) {
      const running = perKey.get(row.client_id) ?? 0;
      if (running >= perKeyConcurrency) {
        giveBack.push(row);
        continue;
      }
      perKey.set(row.client_id, running + 1);
      const run: Promise<void> = attempt(row)
        .catch((error: unknown) => logger.error("partner webhook attempt failed to run", { id: row.id, error }))
        .finally(() => {
          const left = (perKey.get(row.client_id) ?? 1) - 1;
          if (left > 0) perKey.set(row.client_id, left);
          else perKey.delete(row.client_id);
          inFlight.delete(run);
          wake();
        });
      inFlight.add(run);
      started.push(run);
    }
    if (giveBack.length > 0) await deliveries.release(giveBack);
    return started;
  }

  return { claimAndStart, underWay: () => Promise.all(inFlight) };
}

/**
 * Partner webhooks: a durable consumer of the webhook-delivery topic records one delivery per client_id with a
 * webhook for each terminal intent event (so a redelivered bus event adds nothing), and a job of the registry posts
 * due deliveries, claimed in the database, so retries survive a restart and instances share the work.
 */
export function webhookDispatcher(deps: DispatcherDeps, settings: WebhookDeliverySettings = {}) {
  /** The registry's trigger of the job, while it is set up in this process. */
  let runEarly: (() => void) | undefined;
  const wake = () => runEarly?.();
  const attempts = deliveryAttempts(deps, settings, wake);

  async function accept(event: BusEvent): Promise<void> {
    if (await enqueueDeliveries(deps, event)) wake();
  }

  return {
    /** The bus consumer's handler: one delivery per client_id of the intent's partner that has a webhook. */
    accept,
    /** A delivery became due (a replay, a new one, an attempt's end): the job runs at once rather than at its poll. */
    wake,
    /** One pass, for tests and operators: attempts what is due now and waits for those attempts; how many. */
    async deliverDue(): Promise<number> {
      return (await Promise.all(await attempts.claimAndStart())).length;
    },
    /** Consumes the webhook-delivery topic until the returned subscription stops. */
    consume: (bus: MessageBus) => bus.consume("webhooks.delivery", "partner-webhooks", accept),
    /**
     * The job posting due deliveries: at start, every `pollIntervalMs` (and for deliveries other instances enqueued),
     * and at once when woken; its stop waits for the attempts under way.
     */
    job(): Job {
      return {
        name: "partner-webhooks",
        schedule: { everyMs: settings.pollIntervalMs ?? 1_000 },
        runAtStart: true,
        run: () => attempts.claimAndStart(),
        setUp(trigger) {
          runEarly = trigger;
          return async () => {
            runEarly = undefined;
            await attempts.underWay();
          };
        },
      };
    },
  };
}

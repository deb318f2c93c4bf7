// Issue 10's notification benchmark (part of `./events`): graphql-ws clients on the embedded platform, each a
// terminal of its own following one intent that the sandbox provider's webhook makes succeed.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import { performance } from "node:perf_hooks";
import type { Caller } from "@pos-cloud/common";
import { deviceToken } from "@pos-cloud/test-support/device";
import { call, signed } from "@pos-cloud/test-support/gateway";
import { operator } from "@pos-cloud/test-support/portal-seed";
import { type SeededDevice, seed } from "@pos-cloud/test-support/seed";
import { type Client, createClient } from "graphql-ws";
import WebSocket from "ws";
import type { DemoFile } from "../apps/platform/src/demo";
import type { PlatformConfig } from "../apps/platform/src/environment";
import type { RunningPlatform } from "../apps/platform/src/platform";
import { type BenchPlatform, onBenchPlatform } from "./platform";

export interface NotificationFigures {
  clients: number;
  pace: string;
  latency_p50_ms: number;
  latency_p99_ms: number;
  latency_max_ms: number;
  received: number;
  pay_to_written: Percentiles;
  written_to_published: Percentiles;
  published_to_heard: Percentiles;
}

type Percentiles = ReturnType<typeof percentiles>;

const subscription = `subscription Follow($id: String!) {
  paymentIntentUpdated(id: $id) { id status amount currency failure_code failure_message }
}`;

function percentiles(latencies: number[]) {
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
  return { latency_p50_ms: at(0.5), latency_p99_ms: at(0.99), latency_max_ms: at(1) };
}

/**
 * The customer's pay request, on a connection of its own: a pooled one that the sandbox closed while idle, between
 * the phases, was reset under load.
 */
function pay(url: string) {
  return new Promise<void>((resolve, reject) => {
    const request = http.request(url, { method: "POST", agent: false }, (response) => {
      response.resume();
      response.on("end", resolve);
    });
    request.on("error", reject);
    request.end();
  });
}

export interface Intent {
  id: string;
  /** The sandbox provider's transaction, which the customer pays. */
  transaction: string;
}

/** An intent of the demo store, created and confirmed for a QR payment at the sandbox provider. */
async function confirmedIntent(platform: RunningPlatform, demo: DemoFile): Promise<Intent> {
  const created = await signed(platform.baseUrl, demo.partner, "POST", "/v1/payment_intents", {
    amount: 1200,
    currency: "JPY",
    payment_method_types: ["qr_mpm"],
    merchant_ref_id: `bench-${randomBytes(6).toString("hex")}`,
    merchant_store_id: String(demo.store.id),
  });
  const confirmed = await call(platform.baseUrl, "POST", `/v1/payment_intents/${created.body.id}/confirm`, {
    payment_token: created.body.payment_token.token,
    payment_method_type: "qr_mpm",
    provider: "sandbox",
  });
  if (created.status !== 201 || confirmed.status !== 200)
    throw new Error(`creating an intent answered ${created.status}, confirming ${confirmed.status}`);
  const { provider_transaction_id } = await platform.payments.prisma.paymentIntent.findUniqueOrThrow({
    where: { id: created.body.id },
  });
  return { id: created.body.id, transaction: provider_transaction_id! };
}

/**
 * `count` results of `make`, `size` at a time: all at once, hundreds of provisionings waited longer for PGlite's one
 * connection than a transaction may wait to start, on a loaded machine.
 */
async function inBatches<T>(count: number, size: number, make: (n: number) => Promise<T>) {
  const made: T[] = [];
  while (made.length < count) {
    const first = made.length;
    const batch = Array.from({ length: Math.min(size, count - first) }, (_, i) => make(first + i));
    made.push(...(await Promise.all(batch)));
  }
  return made;
}

/** `count` confirmed intents, ten at a time, as a busy store's terminals create them. */
const confirmedIntents = (platform: RunningPlatform, demo: DemoFile, count: number) =>
  inBatches(count, 10, () => confirmedIntent(platform, demo));

/**
 * A graphql-ws client per intent (added to `clients`), following it as the terminal whose token has the same index:
 * `ready` once every client heard its intent's first state, `done` once every one heard its success, the latency
 * from `paidAt` (set by the payer).
 */
function followIntents(demo: DemoFile, tokens: string[], intents: Intent[], clients: Client[]) {
  const paidAt = new Map<string, number>();
  const heardAt = new Map<string, number>();
  const latencies: number[] = [];
  let firstMessages = 0;
  let onFirst = () => {};
  let onDone = () => {};
  let onError = (_: Error) => {};
  const ready = new Promise<void>((resolve) => {
    onFirst = resolve;
  });
  const done = new Promise<void>((resolve, reject) => {
    onDone = resolve;
    onError = reject;
  });
  for (const [n, intent] of intents.entries()) {
    const client = createClient({
      url: demo.graphql_ws_url,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${tokens[n]}` },
    });
    clients.push(client);
    client.subscribe<{ paymentIntentUpdated: { status: string } }>(
      { query: subscription, variables: { id: intent.id } },
      {
        next: (message) => {
          const status = message.data?.paymentIntentUpdated.status;
          if (status === "requires_action" && ++firstMessages === intents.length) onFirst();
          if (status !== "succeeded") return;
          heardAt.set(intent.id, Date.now());
          latencies.push(performance.now() - paidAt.get(intent.id)!);
          if (latencies.length === intents.length) onDone();
        },
        error: (error) => onError(new Error(`the subscription of ${intent.id} failed: ${JSON.stringify(error)}`)),
        complete: () => {},
      },
    );
  }
  return {
    paidAt,
    heardAt,
    latencies,
    ready,
    done,
    fail: (error: Error) => onError(error),
    progress: () => `${firstMessages} heard their first state, ${latencies.length} of ${intents.length} their success`,
  };
}

/** Pays each intent at the sandbox, `intervalMs` apart (0: all at once); answers when each was paid, by the wall clock. */
async function payPaced(
  demo: DemoFile,
  intents: Intent[],
  intervalMs: number,
  following: ReturnType<typeof followIntents>,
) {
  const paidAtWall = new Map<string, number>();
  const started = performance.now();
  for (const [n, intent] of intents.entries()) {
    const due = started + n * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    following.paidAt.set(intent.id, performance.now());
    paidAtWall.set(intent.id, Date.now());
    void pay(`${demo.provider.base_url}/sandbox/transactions/${intent.transaction}/pay`).catch((error: Error) =>
      following.fail(new Error(`paying ${intent.id} at the sandbox failed: ${error.message}`)),
    );
  }
  return paidAtWall;
}

/** Where the time went, by the succeeded event's outbox row: written (the webhook applied), published, heard. */
async function timeSegments(
  platform: RunningPlatform,
  intents: Intent[],
  paidAtWall: Map<string, number>,
  heardAt: Map<string, number>,
) {
  const rows = await platform.payments.db.query<{ aggregate_id: string; created_at: Date; published_at: Date }>(
    `SELECT aggregate_id, created_at, published_at FROM outbox_events
     WHERE event_type = 'payment_intent.succeeded' AND aggregate_id = ANY($1::text[])`,
    [intents.map((intent) => intent.id)],
  );
  const segment = (from: (row: (typeof rows)[number]) => number, to: (row: (typeof rows)[number]) => number) =>
    percentiles(rows.map((row) => to(row) - from(row)));
  return {
    pay_to_written: segment(
      (row) => paidAtWall.get(row.aggregate_id)!,
      (row) => row.created_at.getTime(),
    ),
    written_to_published: segment(
      (row) => row.created_at.getTime(),
      (row) => row.published_at.getTime(),
    ),
    published_to_heard: segment(
      (row) => row.published_at.getTime(),
      (row) => heardAt.get(row.aggregate_id)!,
    ),
  };
}

/**
 * What a profile of the notification phase alone (bench/notification-profile.ts) is told: `paying` once every
 * terminal follows its intent, just before the first payment; `heard` once every terminal heard its success.
 */
export interface NotificationPhase {
  paying: (platform: RunningPlatform, intents: Intent[]) => Promise<void>;
  /** `paidAt` and `heardAt` by intent id, by the wall clock. */
  heard: (paidAt: Map<string, number>, heardAt: Map<string, number>) => Promise<void>;
}

/** One pace: each terminal follows an intent of its own, then the customer pays each. */
async function notificationRound(
  platform: RunningPlatform,
  demo: DemoFile,
  terminals: SeededDevice[],
  intervalMs: number,
  clients: Client[],
  phase?: NotificationPhase,
): Promise<NotificationFigures> {
  const intents = await confirmedIntents(platform, demo, terminals.length);
  // A device token lasts 90 s: taken once the intents exist.
  const tokens = await Promise.all(terminals.map((terminal) => deviceToken(platform.baseUrl, terminal)));
  const following = followIntents(demo, tokens, intents, clients);
  // 60 s to subscribe, then 60 s after the last payment: a loaded machine takes long over 200 at once.
  const giveUp = () =>
    setTimeout(() => {
      following.fail(new Error(`not every client heard of its intent within 60 s: ${following.progress()}`));
    }, 60_000);
  let deadline = giveUp();
  await Promise.race([following.ready, following.done]);
  await phase?.paying(platform, intents);
  const paidAtWall = await payPaced(demo, intents, intervalMs, following);
  clearTimeout(deadline);
  deadline = giveUp();
  await following.done;
  clearTimeout(deadline);
  await phase?.heard(paidAtWall, following.heardAt);
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  const segments = await timeSegments(platform, intents, paidAtWall, following.heardAt);
  return {
    clients: intents.length,
    pace: intervalMs > 0 ? `one payment every ${intervalMs} ms` : "all at once",
    received: following.latencies.length,
    ...percentiles(following.latencies),
    ...segments,
  };
}

/**
 * Who provisions the `n`th terminal: a chain's terminals are set up by several installers over days, and the
 * provisioning limits (30 activations an hour per person, 60 codes an hour per address) guard that flow, not this
 * benchmark's hundreds at once. Twenty terminals each, from an address of their own.
 */
const TERMINALS_PER_INSTALLER = 20;
const installer = (n: number): Caller => ({
  ...operator,
  id: `bench-installer-${Math.floor(n / TERMINALS_PER_INSTALLER)}`,
  ip: `192.0.2.${Math.floor(n / TERMINALS_PER_INSTALLER) + 1}`,
});

/**
 * `terminals` terminals of the demo store (each a device of its own, as the subscription caps per caller expect;
 * graphql-ws clients with its token) each follow one confirmed intent; then the customer pays each intent at the
 * sandbox, which notifies the gateway, and the time is taken from the pay request to the client's `succeeded`
 * message. `intervalMs` paces the payments; 0 sends them all at once. On `shared`, the smoke run's platform, when
 * given.
 */
export async function benchNotification(options: {
  terminals: number;
  intervalMs: number[];
  shared?: BenchPlatform;
  databaseUrls?: PlatformConfig["databaseUrls"];
  phase?: NotificationPhase;
}) {
  return onBenchPlatform(options.shared, "pos-cloud-bench-events-", options.databaseUrls, async ({ platform, dir }) => {
    const clients: Client[] = [];
    try {
      const demo: DemoFile = JSON.parse(readFileSync(platform.demoFile!, "utf8"));
      const seeded = seed({ ...platform, dataDir: dir.path });
      // One installer's terminals at a time.
      const terminals = await inBatches(options.terminals, TERMINALS_PER_INSTALLER, (n) =>
        seeded.device(demo.store, installer(n)),
      );
      const results: NotificationFigures[] = [];
      for (const intervalMs of options.intervalMs) {
        results.push(await notificationRound(platform, demo, terminals, intervalMs, clients, options.phase));
      }
      return results;
    } finally {
      await Promise.all(clients.map((client) => client.dispose()));
    }
  });
}

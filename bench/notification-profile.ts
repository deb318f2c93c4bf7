// `LOG_LEVEL=warn node --max-semi-space-size=16 --import tsx bench/notification-profile.ts [--storage=postgres]
// [--profile=<file.cpuprofile>]`: where the 200-at-once notification goes (issue 36). The notification phase of
// `npm run bench -- events` alone (200 terminals, all paid at once) on the embedded platform, on PGlite or on fresh
// PostgreSQL databases, with each succeeded payment's time at every hop: paid at the sandbox, notified (the sandbox,
// in this process, posts its webhook), received by the payments subgraph's webhook service, applied (its
// transaction committed), claimed (the outbox claim's clock, taken before it waits for a connection), on the bus
// (which the edge's listener hears in the same turn on the embedded bus), heard by the terminal. V8's profiler samples
// the main thread during the payments (PGlite's own thread is not in it: the process's CPU beside it tells its
// share); its busiest functions are printed, the whole profile written where `--profile` says.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";
import { tuneGarbageCollection } from "@pos-cloud/common";
import type { BusSubscription } from "@pos-cloud/common/messaging";
import type { RunningPlatform } from "../apps/platform/src/platform";
import { freshDatabases } from "./create-intent";
import { benchNotification, type Intent } from "./notification";

type Frame = { functionName: string; url: string; lineNumber: number };
type Profile = { nodes: { id: number; callFrame: Frame }[]; samples: number[] };

const SAMPLING_US = 500;
const option = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(`--${name}=`.length);
const storage = option("storage") ?? "pglite";
const profileFile = option("profile");

/** The busiest functions of the profile by their own samples, in ms, with the share of busy time. */
function busiest(profile: Profile, top: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const ms = new Map<string, number>();
  let busy = 0;
  for (const sample of profile.samples) {
    const frame = byId.get(sample)!;
    if (frame.functionName === "(idle)") continue;
    const where = frame.url.replace(`file://${process.cwd()}/`, "").replace(/^.*\/node_modules\//, "");
    const name = `${frame.functionName || "(anonymous)"} ${where}:${frame.lineNumber + 1}`;
    ms.set(name, (ms.get(name) ?? 0) + SAMPLING_US / 1000);
    busy += SAMPLING_US / 1000;
  }
  const rows = [...ms].sort((a, b) => b[1] - a[1]).slice(0, top);
  return {
    busy_ms: Math.round(busy),
    top: rows.map(([name, value]) => `${Math.round(value)} ms ${Math.round((value / busy) * 100)}% ${name}`),
  };
}

function percentiles(values: number[]) {
  values.sort((a, b) => a - b);
  const at = (q: number) => Math.round(values[Math.min(values.length - 1, Math.floor(q * values.length))]!);
  return `p50 ${at(0.5)}, p99 ${at(0.99)}, max ${at(1)}`;
}

/** Each succeeded payment's wall-clock time at each hop, by intent id. */
function hopClock(platform: RunningPlatform, intents: Intent[]) {
  const intentOf = new Map(intents.map((intent) => [intent.transaction, intent.id]));
  const at: Record<"notified" | "received" | "applied" | "on_bus", Map<string, number>> = {
    notified: new Map(),
    received: new Map(),
    applied: new Map(),
    on_bus: new Map(),
  };
  const webhooks = platform.payments.webhooks;
  const receive = webhooks.receive;
  // The sandbox posts its notifications with fetch, in this process.
  const fetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const id = typeof init?.body === "string" ? intentOf.get(JSON.parse(init.body).transaction_id) : undefined;
    if (id) at.notified.set(id, Date.now());
    return fetch(input, init);
  };
  webhooks.receive = async (code, rawBase64, signatures) => {
    const body = JSON.parse(Buffer.from(rawBase64, "base64").toString("utf8")) as { transaction_id?: string };
    const id = intentOf.get(body.transaction_id ?? "");
    if (id) at.received.set(id, Date.now());
    const answer = await receive(code, rawBase64, signatures);
    if (id) at.applied.set(id, Date.now());
    return answer;
  };
  return {
    at,
    listen: () =>
      platform.bus.listen("events.internal", (event) => {
        if (event.event_type === "payment_intent.succeeded") at.on_bus.set(event.aggregate_id, Date.now());
      }),
    restore: () => {
      webhooks.receive = receive;
      globalThis.fetch = fetch;
    },
  };
}

tuneGarbageCollection();
const databases = storage === "postgres" ? await freshDatabases("postgresql://root@127.0.0.1:5432") : undefined;
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: SAMPLING_US });
let hops: ReturnType<typeof hopClock> | undefined;
let listening: BusSubscription | undefined;
let cpu = process.cpuUsage();
let platformOf: RunningPlatform | undefined;
const load = [loadavg()[0]!.toFixed(2)];
try {
  const [figures] = await benchNotification({
    terminals: 200,
    intervalMs: [0],
    databaseUrls: databases?.urls,
    phase: {
      async paying(platform, intents) {
        platformOf = platform;
        hops = hopClock(platform, intents);
        listening = await hops.listen();
        cpu = process.cpuUsage();
        await session.post("Profiler.start");
      },
      async heard(paidAt, heardAt) {
        const { profile } = await session.post("Profiler.stop");
        const used = process.cpuUsage(cpu);
        await listening!.stop();
        hops!.restore();
        if (profileFile) writeFileSync(profileFile, JSON.stringify(profile));
        // The claim's time, once its transaction committed (it marks the rows after the bus took them).
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const rows = await platformOf!.payments.db.query<{ aggregate_id: string; published_at: Date }>(
          `SELECT aggregate_id, published_at FROM outbox_events
           WHERE event_type = 'payment_intent.succeeded' AND aggregate_id = ANY($1::text[])
             AND published_at IS NOT NULL`,
          [[...heardAt.keys()]],
        );
        const claimed = new Map(rows.map((row) => [row.aggregate_id, row.published_at.getTime()]));
        const { notified, received, applied, on_bus } = hops!.at;
        const first = Math.min(...paidAt.values());
        const segment = (from: Map<string, number>, to: Map<string, number>) =>
          percentiles(
            [...heardAt.keys()].flatMap((id) => (from.has(id) && to.has(id) ? [to.get(id)! - from.get(id)!] : [])),
          );
        const since = (to: Map<string, number>) => percentiles([...to.values()].map((time) => time - first));
        console.log(
          JSON.stringify(
            {
              storage,
              process_cpu_ms: Math.round((used.user + used.system) / 1000),
              main_thread: busiest(profile as Profile, 25),
              segments_ms: {
                paid_to_notified: segment(paidAt, notified),
                notified_to_received: segment(notified, received),
                received_to_applied: segment(received, applied),
                applied_to_claimed: segment(applied, claimed),
                claimed_to_on_bus: segment(claimed, on_bus),
                on_bus_to_heard: segment(on_bus, heardAt),
              },
              since_first_payment_ms: {
                notified: since(notified),
                received: since(received),
                applied: since(applied),
                claimed: since(claimed),
                on_bus: since(on_bus),
                heard: since(heardAt),
              },
            },
            null,
            2,
          ),
        );
      },
    },
  });
  load.push(loadavg()[0]!.toFixed(2));
  console.log(JSON.stringify({ ...figures, load_average: load.join(" → ") }, null, 2));
} finally {
  await databases?.drop();
}
process.exit(0);

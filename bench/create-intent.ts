import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { ulid } from "ulid";
import type { DemoFile } from "../apps/platform/src/demo";
import { type BenchPlatform, onBenchPlatform } from "./platform";
import { requireClean } from "./scale";

const subgraphs = ["portal", "pos", "payments"] as const;

export interface Figures {
  requests_per_second: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non_2xx: number;
}

export function runClient(config: Record<string, unknown>): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(import.meta.dirname, "..", "node_modules", ".bin", "tsx"), [
      join(import.meta.dirname, "create-intent-client.ts"),
      JSON.stringify(config),
    ]);
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`load generator exited ${code}`));
      const result = JSON.parse(output);
      resolve({
        requests_per_second: Math.round(result.requests.average),
        latency_p50_ms: result.latency.p50,
        latency_p99_ms: result.latency.p99,
        non_2xx: result.non2xx,
      });
    });
  });
}

/** Fresh databases for one run, on the PostgreSQL the cluster suite uses. */
export async function freshDatabases(base: string) {
  const admin = new pg.Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  const suffix = randomUUID().replace(/-/g, "").slice(0, 10);
  const names = Object.fromEntries(subgraphs.map((s) => [s, `pos_cloud_bench_${suffix}_${s}`])) as Record<
    (typeof subgraphs)[number],
    string
  >;
  for (const name of Object.values(names)) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    urls: Object.fromEntries(subgraphs.map((s) => [s, `${base}/${names[s]}`])) as Record<
      (typeof subgraphs)[number],
      string
    >,
    async drop() {
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      for (const name of Object.values(names)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** The rows one create writes (intent, payment token, outbox event, idempotency record), in one transaction. */
async function insertCreateRows(pool: pg.Pool) {
  const client = await pool.connect();
  const id = `pi_${ulid()}`;
  const now = new Date();
  try {
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO payment_intents (id, merchant_id, store_id, client_partner_id, merchant_ref_id, amount, currency,
         payment_method_types, processing_mode, status, updated_at, expires_at)
       VALUES ($1, 1, 1, 1, $2, 1500, 'JPY', '{qr_mpm}', 'pgw_processed', 'requires_payment_method', $3, $4)`,
      [id, randomUUID(), now, new Date(now.getTime() + 30 * 60_000)],
    );
    await client.query("INSERT INTO payment_tokens (token_hash, payment_intent_id, expires_at) VALUES ($1, $2, $3)", [
      randomUUID(),
      id,
      new Date(now.getTime() + 300_000),
    ]);
    await client.query(
      `INSERT INTO outbox_events (id, event_type, aggregate_id, payload) VALUES ($1, 'payment_intent.created', $2, $3)`,
      [ulid(), id, JSON.stringify({ payment_intent: { id } })],
    );
    await client.query(
      `INSERT INTO idempotency_keys (client_partner_id, idempotency_key, request_hash, status, response_sealed,
         created_at, expires_at) VALUES (1, $1, 'hash', 'completed', 'sealed', $2, $3)`,
      [randomUUID(), now, new Date(now.getTime() + 86_400_000)],
    );
    await client.query("COMMIT");
  } finally {
    client.release();
  }
}

function figures(latencies: number[], seconds: number): Figures {
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
  return {
    requests_per_second: Math.round(latencies.length / seconds),
    latency_p50_ms: at(0.5),
    latency_p99_ms: at(0.99),
    non_2xx: 0,
  };
}

/**
 * The same rows inserted with plain `pg` at the same concurrency, what the database alone can do. Without `rate`:
 * as fast as the connections allow, the ceiling the stack's peak is compared with. With `rate`: paced like the
 * half-peak run, latency counted from when an insert was due, so the database's own tail (the disk's slow flushes
 * included) can be told apart from the stack's.
 */
async function plainInserts(url: string, connections: number, seconds: number, rate?: number): Promise<Figures> {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  const latencies: number[] = [];
  if (rate) {
    const started = performance.now();
    const inserts: Promise<void>[] = [];
    for (let i = 0; i < rate * seconds; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      inserts.push(insertCreateRows(pool).then(() => void latencies.push(performance.now() - due)));
    }
    await Promise.all(inserts);
  } else {
    const until = Date.now() + seconds * 1000;
    const worker = async () => {
      while (Date.now() < until) {
        const started = performance.now();
        await insertCreateRows(pool);
        latencies.push(performance.now() - started);
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
  }
  await pool.end();
  return figures(latencies, seconds);
}

/**
 * HMAC-signed creates with idempotency keys through the whole stack (edge, gateway, payments subgraph, storage):
 * at full speed, then at half that rate for the latency target. On PostgreSQL the same run measures the plain-`pg`
 * baseline at full speed and at the half-peak rate; on PGlite (embedded) the stack alone.
 */
export async function benchCreateIntent(options: {
  storage: "postgres" | "pglite";
  postgresBase: string;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** Only the peak, not the half-peak run after it. */
  peakOnly?: boolean;
  /** The smoke run's platform, on PGlite: used instead of one of its own. */
  shared?: BenchPlatform;
}) {
  const databases = options.storage === "postgres" ? await freshDatabases(options.postgresBase) : undefined;
  try {
    return await onBenchPlatform(options.shared, "pos-cloud-bench-", databases?.urls, async ({ platform }) => {
      const demo: DemoFile = JSON.parse(readFileSync(platform.demoFile!, "utf8"));
      const client = {
        baseUrl: platform.baseUrl,
        partner: demo.partner,
        storeCode: demo.store.code,
        connections: options.connections,
        seconds: options.seconds,
      };
      // The first seconds after start-up compile the stack's hot paths; what they measure is the JIT, not the stack.
      if (options.warmupSeconds > 0) await runClient({ ...client, seconds: options.warmupSeconds });
      const peak = await runClient(client);
      const halfRate = Math.max(1, Math.floor(peak.requests_per_second / 2));
      const halfPeak = options.peakOnly ? undefined : await runClient({ ...client, rate: halfRate });
      requireClean(`create-intent (${options.storage})`, {
        refused_at_peak: peak.non_2xx,
        refused_at_half_peak: halfPeak?.non_2xx,
      });
      const baseline = databases
        ? await plainInserts(databases.urls.payments, options.connections, options.seconds)
        : undefined;
      const baselineAtHalfPeak = databases
        ? await plainInserts(databases.urls.payments, options.connections, options.seconds, halfRate)
        : undefined;
      return {
        storage: options.storage,
        connections: options.connections,
        peak,
        half_peak: halfPeak,
        baseline,
        baseline_at_half_peak: baselineAtHalfPeak,
        ratio: baseline ? Number((peak.requests_per_second / baseline.requests_per_second).toFixed(3)) : undefined,
      };
    });
  } finally {
    await databases?.drop();
  }
}

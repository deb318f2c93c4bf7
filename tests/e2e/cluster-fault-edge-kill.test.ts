import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../support/cluster";
import { onPostgres } from "../support/environment";
import { signed } from "../support/gateway";

const KEYS = 40;
/** Clients sending at once, so that both edge instances have requests in flight when one dies. */
const CLIENTS = 12;
const ATTEMPT_TIMEOUT_MS = 10_000;

/** The pids of the edge instances that said they listen, in the order they said it. */
const edgePids = (output: string[]) =>
  output.flatMap((line) => /^\[edge\] edge (\d+) at /.exec(line)?.[1] ?? []).map(Number);

// Issue 13 (faults): one edge instance is killed (SIGKILL) in the middle of a burst of creates, each with its own
// Idempotency-Key. Clients retry what failed with the same key and body (newly signed: the replay guard refuses a
// signature seen before); each key ends with exactly one intent, every answer for it names that intent, and the
// edge's primary starts another instance. The cluster suite only.
describe.skipIf(!onPostgres)("an edge instance killed during a burst of creates", () => {
  let running: TestCluster;

  beforeAll(async () => {
    running = await startTestCluster();
  }, 180_000);
  afterAll(async () => {
    await running?.close();
  }, 60_000);

  it("gives every key exactly one intent, the same one to every retry, and replaces the dead instance", async () => {
    const { cluster, demo, output } = running;
    const run = randomUUID();
    const keys = Array.from({ length: KEYS }, (_, i) => `${run}-${i}`);
    /** Every 2xx answer's intent id, per key. */
    const answered = new Map<string, string[]>();
    /** Attempts whose connection was reset: the dead instance had them in flight or kept their connection. */
    let resets = 0;
    let completed = 0;
    /** The timestamp each key was last signed with: each attempt signs with an earlier one, so anew. */
    const signedAt = new Map<string, number>();
    const [victim] = edgePids(output);
    expect(victim).toBeDefined();

    /** One client's create with its key, retried (signed anew each time) until the gateway answers 2xx. */
    const create = async (key: string) => {
      const body = {
        amount: 1200,
        currency: "JPY",
        payment_method_types: ["credit_card"],
        merchant_ref_id: key,
        merchant_store_id: demo.store.code,
      };
      for (let attempt = 0; attempt < 20; attempt++) {
        // Earlier than the last but well within the signature's window of 5 minutes.
        const timestamp = Math.min(Math.floor(Date.now() / 1000), (signedAt.get(key) ?? Number.POSITIVE_INFINITY) - 1);
        signedAt.set(key, timestamp);
        const response = await signed(cluster.baseUrl, demo.partner, "POST", "/v1/payment_intents", body, {
          timestamp,
          headers: { "idempotency-key": key },
          // A connection the primary handed to the instance as it died is never answered: give up on it, as a
          // client would, and retry.
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        }).catch(() => undefined);
        if (response && response.status >= 200 && response.status < 300) {
          answered.set(key, [...(answered.get(key) ?? []), response.body.id as string]);
          return;
        }
        // A reset connection, or the first request for this key still being processed.
        if (!response) resets++;
        else if (!(response.status === 409 && response.body.code === "idempotency_conflict"))
          throw new Error(`${key}: ${response.status} ${JSON.stringify(response.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${key}: no answer after 20 attempts`);
    };

    const queue = [...keys];
    const client = async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        await create(key);
        completed++;
        if (completed === CLIENTS) process.kill(victim!, "SIGKILL");
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));

    // The kill cut requests in flight: the retries were needed.
    expect(resets).toBeGreaterThan(0);
    // A retry of every key now, as a client that never heard its answer would send: the same intent again.
    for (const key of keys) await create(key);
    for (const key of keys) {
      const ids = answered.get(key) ?? [];
      expect(ids.length, key).toBe(2);
      expect(new Set(ids).size, key).toBe(1);
    }
    const rows = await running.payments.query<{ merchant_ref_id: string; id: string }>(
      "SELECT merchant_ref_id, id FROM payment_intents WHERE merchant_ref_id LIKE $1",
      [`${run}-%`],
    );
    expect(rows.rows.map((row) => `${row.merchant_ref_id} ${row.id}`).sort()).toEqual(
      keys.map((key) => `${key} ${answered.get(key)![0]}`).sort(),
    );

    // The primary started another instance in the dead one's place; the cluster did not stop.
    await expect.poll(() => edgePids(output).length, { timeout: 20_000 }).toBe(3);
    const replacement = edgePids(output)[2]!;
    expect(replacement).not.toBe(victim);
    expect(process.kill(replacement, 0)).toBe(true);
    expect(running.failure()).toBeUndefined();
  }, 180_000);
});

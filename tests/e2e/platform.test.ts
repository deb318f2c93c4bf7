import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JobState } from "@pos-cloud/common/jobs";
import { openDatabase } from "@pos-cloud/common/storage";
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { backup, restore } from "../../apps/platform/src/backup";
import { onPostgres, temporaryDirectory } from "../support/environment";
import { demoUser, inProcessOnly, logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";

/** Every periodic job of the three subgraphs, as the embedded platform and each cluster worker run them. */
const platformJobs = [
  "gateway-sync",
  "signing-key-rotation",
  "portal-message-retries",
  "pos-outbox",
  "pos-outbox-cleanup",
  "pos-payment-recovery",
  "pos-refund-recovery",
  "pos-message-retries",
  "card-settlement-exchange",
  "card-settlement-exchange-retries",
  "accounting-export",
  "accounting-export-retries",
  "payments-outbox",
  "payments-outbox-cleanup",
  "payment-poll",
  "provider-refund-resume",
  "intent-expiry",
  "confirm-recovery",
  "api-key-expiry",
  "platform-key-renewal",
  "webhook-redelivery-probe",
  "partner-webhooks",
  // One per configured provider (the defaults where a sandbox runs).
  "provider-reconciliation-sandbox",
  "provider-reconciliation-sandbox-poll",
  "provider-reconciliation-paypay",
];

/** Files and directories under `dir` (and itself) that anyone but their owner may read, write or enter. */
function filesOthersCanRead(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink() || stat.isSocket()) return;
    if ((stat.mode & 0o077) !== 0) found.push(`${(stat.mode & 0o777).toString(8)} ${path}`);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(dir);
  return found;
}

const storeQuery = `query Store($id: Int!) {
  store(id: $id) { id name merchant { id name psp { code } } open_orders_count payment_intents_count }
}`;

describe("the embedded platform", () => {
  let platform: TestPlatform;
  let demo: ReturnType<typeof JSON.parse>;
  let token: string;
  const auth = () => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    platform = await startTestPlatform();
    demo = JSON.parse(readFileSync(join(platform.dataDir, "demo.json"), "utf8"));
    token = (await logIn(platform.baseUrl, demoUser(demo, "SYSTEM_OP"))).access_token;
  });
  const scratch = temporaryDirectory("pos-cloud-backup-test-");
  afterAll(async () => {
    await platform?.close();
    scratch.remove();
  });

  it("answers /health", async () => {
    const response = await fetch(`${platform.baseUrl}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  // Issue 32: descriptor counts, traffic by route and job schedules were on the public port, in production too.
  it("serves /ready and /metrics on the operator's loopback port only, never on the public port", async () => {
    for (const path of ["/ready", "/metrics"]) {
      const answer = await fetch(`${platform.baseUrl}${path}`);
      expect({ path, status: answer.status, code: ((await answer.json()) as { code: string }).code }).toEqual({
        path,
        status: 404,
        code: "not_found",
      });
    }
    expect(new URL(platform.adminUrl).hostname).toBe("127.0.0.1");
    expect((await fetch(`${platform.adminUrl}/ready`)).status).toBe(200);
    expect(await (await fetch(`${platform.adminUrl}/metrics`)).text()).toMatch(/^process_open_fds \d+$/m);
  });

  // In-process only: a cluster's jobs run in its workers, whose /ready lists them (cluster-start.test.ts).
  inProcessOnly("lists its jobs at /ready and counts their runs in /metrics", async () => {
    const ready = (await (await fetch(`${platform.adminUrl}/ready`)).json()) as { status: string; jobs: JobState[] };
    expect(ready.status).toBe("ready");
    expect(ready.jobs.map((job) => job.name).sort()).toEqual([...platformJobs].sort());
    // The key rotation check runs at start and the platform's start waits for it.
    expect(ready.jobs.find((job) => job.name === "signing-key-rotation")).toMatchObject({
      schedule: "every 3600000 ms",
      last_success_at: expect.any(String),
    });
    expect(ready.jobs.find((job) => job.name === "card-settlement-exchange")).toMatchObject({
      schedule: "0 2 * * * (Asia/Tokyo)",
      next_run_at: expect.stringMatching(/T17:00:00.000Z$/),
    });
    const scraped = await (await fetch(`${platform.adminUrl}/metrics`)).text();
    expect(scraped).toMatch(/^pgw_job_runs_total\{job="signing-key-rotation",outcome="succeeded"\} [1-9]/m);
    expect(scraped).toMatch(/^pgw_job_last_success_timestamp_seconds\{job="signing-key-rotation"\} \d+/m);
    // The task gauges count each subgraph's kinds at the scrape.
    for (const series of [
      'kind="gateway_sync",state="running"',
      'kind="pos_refund_recovery",state="due"',
      'kind="webhook_delivery",state="dead"',
      'kind="event_outbox",state="due"',
      'kind="card_exchange",state="running"',
    ])
      expect(scraped).toContain(`pgw_tasks{${series}} `);
  });

  it("writes demo.json with the stable keys and working URLs", () => {
    expect(demo.base_url).toBe(platform.baseUrl);
    expect(Object.keys(demo)).toEqual(
      expect.arrayContaining([
        "base_url",
        "api_url",
        "graphql_url",
        "graphql_ws_url",
        "psp",
        "merchant",
        "store",
        "device",
        "users",
      ]),
    );
  });

  it("resolves one store query across portal, pos and payments", async () => {
    const { status, body } = await postGraphQL(platform.baseUrl, storeQuery, { id: demo.store.id }, token);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.store).toEqual({
      id: demo.store.id,
      name: "Demo Store Shibuya",
      merchant: { id: demo.merchant.id, name: "Demo Merchant", psp: { code: "DEMO-PSP" } },
      // The demo's orders: one open, one billed (a takeaway was paid in cash: completed, and its cash intent).
      open_orders_count: 2,
      payment_intents_count: 1,
    });
  });

  it("maps a REST route onto the same operation", async () => {
    for (const path of [`/api/v1/stores/${demo.store.id}`, `/stores/${demo.store.id}`]) {
      const response = await fetch(`${platform.baseUrl}${path}`, { headers: auth() });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: demo.store.id, code: demo.store.code });
    }
  });

  it("serves queries over graphql-ws", async () => {
    const client = createClient({
      url: demo.graphql_ws_url,
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${token}` },
    });
    try {
      const result = await new Promise<any>((resolve, reject) => {
        client.subscribe(
          { query: storeQuery, variables: { id: demo.store.id } },
          { next: resolve, error: reject, complete: () => {} },
        );
      });
      expect(result.data.store.merchant.name).toBe("Demo Merchant");
    } finally {
      await client.dispose();
    }
  });

  describe("answers bad requests with a clear 4xx in the {code, message, details} shape", () => {
    const expectError = async (response: Response, status: number, code: string) => {
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toMatch(/application\/json/);
      const body = await response.json();
      expect(body).toMatchObject({ code, message: expect.any(String), details: expect.any(Object) });
    };
    /** What `/graphql` answers before GraphQL runs: GraphQL's `errors`, at the status REST would have. */
    const expectGraphQLError = async (response: Response, status: number, code: string) => {
      expect(response.status).toBe(status);
      const body = await response.json();
      expect(body).toEqual({
        errors: [{ message: expect.any(String), extensions: { code, details: expect.any(Object) } }],
      });
    };

    it("unknown route: 404", async () => {
      await expectError(await fetch(`${platform.baseUrl}/api/v1/nothing-here`), 404, "not_found");
    });

    it("known path, wrong method: 405", async () => {
      await expectError(
        await fetch(`${platform.baseUrl}/api/v1/stores/1`, { method: "PUT" }),
        405,
        "method_not_allowed",
      );
    });

    it("malformed JSON: 400", async () => {
      const response = await fetch(`${platform.baseUrl}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"query": ',
      });
      await expectGraphQLError(response, 400, "INVALID_REQUEST");
    });

    it("wrong content type: 415", async () => {
      const response = await fetch(`${platform.baseUrl}/graphql`, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "{ store(id: 1) { id } }",
      });
      await expectGraphQLError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    });

    it("body over 1 MiB: 413", async () => {
      const response = await fetch(`${platform.baseUrl}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ psps { nodes { id } } }", padding: "x".repeat(1024 * 1024) }),
      });
      await expectGraphQLError(response, 413, "PAYLOAD_TOO_LARGE");
    });

    it("an id that is not an integer: 400 naming the field", async () => {
      const response = await fetch(`${platform.baseUrl}/api/v1/stores/abc`, { headers: auth() });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { details: unknown }).details).toMatchObject({ field: "id" });
    });

    it("a store that does not exist: 404", async () => {
      await expectError(await fetch(`${platform.baseUrl}/api/v1/stores/999999`, { headers: auth() }), 404, "not_found");
    });
  });

  // Embedded storage only: cluster mode is backed up with PostgreSQL's tools (docs/operations.md). The probe found the
  // file plaintext, mode 0644, holding master.key and demo.json's secrets; and most database files mode 0666.
  it.skipIf(onPostgres)(
    "backs up while it runs, encrypted and owner-only, and a restore into a new data directory has the same data",
    // Four passphrases stretched by scrypt (about a second each on a busy machine) and three databases restored.
    { timeout: 120_000 },
    async () => {
      expect(filesOthersCanRead(platform.dataDir)).toEqual([]);
      const file = join(scratch.path, "platform.backup");
      const passphrase = "correct horse battery staple";
      expect(await backup(platform.dataDir, file, passphrase)).toBe("running");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const bytes = readFileSync(file);
      const masterKey = readFileSync(join(platform.dataDir, "master.key"), "utf8").trim();
      for (const secret of [masterKey, demo.partner.secret, demoUser(demo, "SYSTEM_OP").password, "PG_VERSION"]) {
        expect(bytes.includes(secret)).toBe(false);
      }
      const restored = join(scratch.path, "restored");
      await expect(restore(restored, file, "not the passphrase")).rejects.toThrow(
        `the passphrase does not open ${file} (BACKUP_PASSPHRASE must be the one it was made with)`,
      );
      const changed = join(scratch.path, "changed.backup");
      writeFileSync(
        changed,
        Buffer.concat([bytes.subarray(0, 200), Buffer.from([bytes[200]! ^ 1]), bytes.subarray(201)]),
      );
      await expect(restore(restored, changed, passphrase)).rejects.toThrow(
        `${changed} was changed or cut short since it was written: nothing restored`,
      );
      expect(existsSync(join(restored, "portal"))).toBe(false);
      await restore(restored, file, passphrase);
      await expect(restore(restored, file, passphrase)).rejects.toThrow(
        /already holds the portal, pos, payments database/,
      );
      expect(filesOthersCanRead(restored)).toEqual([]);
      const reads = {
        portal: [
          "SELECT id, name FROM psps ORDER BY id",
          "SELECT id, name FROM merchants ORDER BY id",
          "SELECT id, name FROM stores ORDER BY id",
        ],
        payments: [
          "SELECT id, status, amount FROM payment_intents ORDER BY id",
          "SELECT * FROM transactions ORDER BY id",
        ],
      };
      for (const [subgraph, queries] of Object.entries(reads)) {
        const running = subgraph === "portal" ? platform.portal.db : platform.payments.db;
        const copy = await openDatabase({ dataDir: join(restored, subgraph) });
        try {
          for (const sql of queries) {
            const rows = await running.query(sql);
            expect(rows.length).toBeGreaterThan(0);
            expect(await copy.query(sql)).toEqual(rows);
          }
        } finally {
          await copy.close();
        }
      }
      expect(readFileSync(join(restored, "master.key"), "utf8")).toBe(
        readFileSync(join(platform.dataDir, "master.key"), "utf8"),
      );
    },
  );

  it("keeps its data across a restart, and will not start with another master key", async () => {
    await platform.stop();
    const keyFile = join(platform.dataDir, "master.key");
    const key = readFileSync(keyFile, "utf8");
    const otherKey = `${randomBytes(32).toString("hex")}\n`;
    writeFileSync(keyFile, otherKey);
    await expect(platform.restart()).rejects.toThrow(
      "the databases were made with another master key (the portal database's secrets do not open with this one): " +
        "give that key with MASTER_KEY (or its file DATA_DIR/master.key), or start on new databases",
    );
    expect(readFileSync(keyFile, "utf8")).toBe(otherKey);
    writeFileSync(keyFile, key);
    await platform.restart();
    const { body } = await postGraphQL(platform.baseUrl, storeQuery, { id: demo.store.id }, token);
    expect(body.data.store.name).toBe("Demo Store Shibuya");
    const again = JSON.parse(readFileSync(join(platform.dataDir, "demo.json"), "utf8"));
    expect(again.store).toEqual(demo.store);
    const { body: list } = await postGraphQL(platform.baseUrl, "{ psps { nodes { code } } }", {}, token);
    expect(list.data.psps.nodes).toEqual([{ code: "DEMO-PSP" }]);
    expect(again.device).toEqual(demo.device);
    // The demo's orders are made once: a restart adds none.
    expect(body.data.store).toMatchObject({ open_orders_count: 2, payment_intents_count: 1 });
  });
});

// A clock moved by a test (in this process only) runs the demo terminal's sign-in too.
inProcessOnly("makes the demo's orders at the platform's time when its clock is two hours behind", async () => {
  const clock = () => new Date(Date.now() - 2 * 60 * 60 * 1000);
  const platform = await startTestPlatform({ clock });
  try {
    const demo = JSON.parse(readFileSync(join(platform.dataDir, "demo.json"), "utf8"));
    const { access_token } = await logIn(platform.baseUrl, demoUser(demo, "SYSTEM_OP"), clock());
    const { body } = await postGraphQL(platform.baseUrl, storeQuery, { id: demo.store.id }, access_token);
    expect(body.data.store).toMatchObject({ open_orders_count: 2, payment_intents_count: 1 });
  } finally {
    await platform.close();
  }
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  createTerminalClient,
  type EntryState,
  type OfflineQueue,
  openOfflineQueue,
  type TerminalApiError,
  TOKEN_PATH,
} from "@pos-cloud/terminal-sdk";
import { fileStore } from "@pos-cloud/terminal-sdk/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { humanToken } from "../support/device";
import { clusterWiring, temporaryDirectory } from "../support/environment";
import { callJson, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededDevice, type SeededStore, seed } from "../support/seed";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { spawnSource } from "../support/worker-process";

// Issue 34: a terminal built on the SDK keeps selling cash while the platform is out of reach, and its offline queue
// puts every sale on the platform once, with the time it happened, when the network is back, even when the terminal's
// process is killed in the middle of the upload.

const SECOND = 1000;
/** The business date of a moment in Asia/Tokyo, the stores' business clock. */
const businessDate = (at: number) => new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(at);

let platform: TestPlatform;
let proxy: TcpProxy;
const scratch = temporaryDirectory("offline-queue-");
/** The platform's clock and the terminal's; moved by the outage test where the platform runs in this process. */
let offset = 0;
const clock = () => Date.now() + offset;

beforeAll(async () => {
  platform = await startTestPlatform({ demo: false, clock: () => new Date(clock()) });
  const { hostname, port } = new URL(platform.baseUrl);
  proxy = await startTcpProxy({ host: hostname, port: Number(port) });
});
afterAll(async () => {
  await proxy?.close();
  await platform?.close();
  scratch.remove();
});

/** A new store that sells, one of its terminals, a member of its staff, and its manager's token. */
async function till() {
  const store = await seed(platform).store({ sells: true });
  const device = await seed(platform).device(store);
  const staff = await seed(platform).user("STAFF", store);
  const manager = await humanToken(platform.portal, {
    role: "STORE_MANAGER",
    psp_id: store.psp_id,
    merchant_id: store.merchant_id,
    store_id: store.id,
  });
  return { store, device, staffCode: staff.login_id, manager };
}

/** A cash sale of `quantity` lunches at 1000 with 10 % tax, all three steps queued: its total is 1100 × quantity. */
async function sell(queue: OfflineQueue, staffCode: string, quantity: number) {
  const order = await queue.order({
    order_type: "takeaway",
    items: [{ sequence: 1, item_name: "Lunch box", quantity, unit_price: 1000 }],
  });
  const bill = await queue.bill({ order, staff_code: staffCode, tax_percentage: 10 });
  const total = 1100 * quantity;
  await queue.cashPayment({ bill, amount: total, cash_received: total });
  return total;
}

/** Everything of `kind` the platform holds for a device, through its manager's eyes. */
async function platformList(kind: "orders" | "payments", device: SeededDevice, store: SeededStore, token: string) {
  const path = `/api/v1/${kind}?store_id=${store.id}&limit=100`;
  const listed = await callJson(platform.baseUrl, "GET", path, token);
  expect(listed.status).toBe(200);
  return (
    listed.body as { device_id: string; id: string; occurred_at: string; amount?: number; status: string }[]
  ).filter((row) => row.device_id === device.id);
}

/** The store's counted payments and gross over the business days of `moments`, as its day view adds them up. */
async function dayTotals(store: SeededStore, manager: string, moments: number[]) {
  let count = 0;
  let gross = 0;
  for (const date of new Set(moments.map(businessDate))) {
    const day = await postGraphQL(
      platform.baseUrl,
      "query ($store_id: Int, $date: String) { storeDay(store_id: $store_id, date: $date) { payment_count gross_amount } }",
      { store_id: store.id, date },
      manager,
    );
    count += day.body.data.storeDay.payment_count;
    gross += day.body.data.storeDay.gross_amount;
  }
  return { count, gross };
}

const timesOf = (entries: EntryState[], kind: string) =>
  entries.filter(({ entry }) => entry.kind === kind).map(({ entry }) => Date.parse(entry.occurred_at));

describe("the terminal's offline queue", () => {
  it("sells cash for two minutes without the platform, across a token expiry, and uploads every sale once with its time", async () => {
    const { store, device, staffCode, manager } = await till();
    const tokensIssued: number[] = [];
    const terminal = createTerminalClient({
      baseUrl: proxy.url("http"),
      tokenAudience: `${platform.baseUrl}${TOKEN_PATH}`,
      clientId: device.client_id,
      privateKey: device.private_jwk,
      now: clock,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const url = String(input instanceof Request ? input.url : input);
        if (url.endsWith(TOKEN_PATH) && response.ok) tokensIssued.push(clock());
        return response;
      },
    });
    const retried: unknown[] = [];
    const queue = await openOfflineQueue(terminal, {
      store: fileStore(join(scratch.path, "outage.jsonl")),
      now: clock,
      onRetry: (error) => retried.push(error),
      backoff: () => new Promise((resolve) => setTimeout(resolve, 20)),
    });
    // Two minutes of sales, one every 10 s of the terminal's clock, ending now. Where the platform runs in this process
    // its clock starts two minutes back too, so the token the terminal holds when the network goes (90 s of life)
    // has expired when it comes back; the cluster's processes keep real time, and the token outlives the outage.
    const outage = -120 * SECOND;
    if (!clusterWiring) offset = outage;
    await terminal.tokens.token();
    offset = outage;
    proxy.cut();
    let uploading: Promise<void> | undefined;
    let sold = 0;
    for (let sale = 1; sale <= 12; sale++) {
      offset += 10 * SECOND;
      sold += await sell(queue, staffCode, 1 + (sale % 3));
      // As a till does: it tries to upload from its first offline sale on, retrying until the network is back.
      uploading ??= queue.upload();
    }
    await expect.poll(() => retried.length).toBeGreaterThan(0);
    expect(await platformList("orders", device, store, manager)).toEqual([]);

    const restoredAt = clock();
    proxy.restore();
    await uploading;

    const entries = queue.entries();
    expect(entries.map(({ status }) => status)).toEqual(Array(36).fill("done"));
    if (!clusterWiring) expect(tokensIssued.filter((at) => at >= restoredAt).length).toBeGreaterThan(0);
    const orders = await platformList("orders", device, store, manager);
    expect(orders.map((order) => Date.parse(order.occurred_at)).sort()).toEqual(timesOf(entries, "order").sort());
    const payments = await platformList("payments", device, store, manager);
    expect(payments.map((payment) => Date.parse(payment.occurred_at)).sort()).toEqual(
      timesOf(entries, "payment").sort(),
    );
    expect(payments.every((payment) => payment.status === "completed")).toBe(true);
    expect(await dayTotals(store, manager, timesOf(entries, "payment"))).toEqual({ count: 12, gross: sold });
    expect(readFileSync(join(scratch.path, "outage.jsonl"), "utf8")).toBe("");
  });

  it("keeps a sale the platform refuses, with what depends on it, reports it, and uploads the others", async () => {
    const { store, device, staffCode, manager } = await till();
    const terminal = createTerminalClient({
      baseUrl: platform.baseUrl,
      clientId: device.client_id,
      privateKey: device.private_jwk,
    });
    const refusals: [string, TerminalApiError][] = [];
    const queue = await openOfflineQueue(terminal, {
      store: fileStore(join(scratch.path, "refusal.jsonl")),
      onRefused: (entry, error) => refusals.push([entry.kind, error]),
    });
    const order = await queue.order({
      order_type: "dine_in",
      table_number: "no table!",
      items: [{ sequence: 1, item_name: "Tea", quantity: 1, unit_price: 300 }],
    });
    const bill = await queue.bill({ order, staff_code: staffCode, tax_percentage: 10 });
    await queue.cashPayment({ bill, amount: 330, cash_received: 500 });
    const sold = await sell(queue, staffCode, 2);
    await queue.upload();

    expect(refusals.map(([kind, error]) => [kind, error.status, error.code])).toEqual([
      ["order", 400, "invalid_request"],
      ["bill", 424, "dependency_refused"],
      ["payment", 424, "dependency_refused"],
    ]);
    expect(refusals[0]?.[1].details).toMatchObject({ field: "table_number" });
    expect(queue.entries().map(({ status }) => status)).toEqual([
      ...Array(3).fill("refused"),
      ...Array(3).fill("done"),
    ]);
    const payments = await platformList("payments", device, store, manager);
    expect(payments.map((payment) => payment.amount)).toEqual([sold]);

    // Kept through a restart until the app dismisses them.
    const reopened = await openOfflineQueue(terminal, { store: fileStore(join(scratch.path, "refusal.jsonl")) });
    expect(reopened.entries().map(({ status }) => status)).toEqual(Array(3).fill("refused"));
    for (const { entry } of reopened.entries()) await reopened.dismiss(entry.id);
    expect(readFileSync(join(scratch.path, "refusal.jsonl"), "utf8")).toBe("");
  });

  it("uploads a sale once when its answers are lost and the terminal's clock runs ahead of the platform's", async () => {
    const { store, device, staffCode, manager } = await till();
    // Each first answer to a write is lost after the platform made it, as a connection dropped mid-answer loses it.
    const lost = new Set<string>();
    const terminal = createTerminalClient({
      baseUrl: platform.baseUrl,
      clientId: device.client_id,
      privateKey: device.private_jwk,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const response = await fetch(request);
        const write = `${request.method} ${new URL(request.url).pathname}`;
        if (request.method !== "POST" || lost.has(write) || write.endsWith(TOKEN_PATH)) return response;
        lost.add(write);
        throw new TypeError("fetch failed: the connection closed before the answer");
      },
    });
    // Three minutes ahead: within the skew the platform allows, so it records its own time, not the terminal's.
    const queue = await openOfflineQueue(terminal, {
      store: fileStore(join(scratch.path, "clock-ahead.jsonl")),
      now: () => clock() + 3 * 60 * SECOND,
      backoff: () => new Promise((resolve) => setTimeout(resolve, 20)),
    });
    const sold = await sell(queue, staffCode, 2);
    await queue.upload();

    expect([...lost].sort()).toEqual(["POST /api/v1/bills", "POST /api/v1/orders", "POST /api/v1/payments"]);
    const entries = queue.entries();
    expect(entries.map(({ status }) => status)).toEqual(["done", "done", "done"]);
    const orders = await platformList("orders", device, store, manager);
    expect(orders.map((order) => order.id)).toEqual([entries[0]?.result?.id]);
    const payments = await platformList("payments", device, store, manager);
    expect(payments.map((payment) => [payment.id, payment.amount])).toEqual([[entries[2]?.result?.id, sold]]);
  });

  // Three terminal processes start from their sources one after the other: more than the default 30 s on a busy machine.
  it("loses and duplicates nothing when the terminal's process is killed after the platform answered", async () => {
    const { store, device, staffCode, manager } = await till();
    const file = join(scratch.path, "killed.jsonl");
    const recording = await openOfflineQueue(
      createTerminalClient({ baseUrl: platform.baseUrl, clientId: device.client_id, privateKey: device.private_jwk }),
      { store: fileStore(file) },
    );
    let sold = 0;
    for (let sale = 1; sale <= 4; sale++) sold += await sell(recording, staffCode, sale);
    const recorded = recording.entries();

    const run = async (stallAt?: string) => {
      const terminal = spawnSource("tests/support/offline-terminal.ts", /^(stalled|queue settled)$/, {
        BASE_URL: platform.baseUrl,
        CLIENT_ID: device.client_id,
        PRIVATE_JWK: JSON.stringify(device.private_jwk),
        QUEUE_FILE: file,
        STALL_AT: stallAt ?? "",
      });
      const ending = await terminal.running;
      await (ending === "stalled" ? terminal.kill() : terminal.stop());
      return terminal.output();
    };
    // The first order reaches the platform and the process dies before its queue hears so: the restarted queue sends it
    // again and its Idempotency-Key answers the first order. Then the second payment, the same way.
    expect(await run("/api/v1/orders:1")).toMatch(/^stalled$/m);
    const second = await run("/api/v1/payments:2");
    expect(second).toMatch(/^running with 12 entries$/m);
    expect(second).toMatch(/^stalled$/m);
    const last = await run();
    expect(last).toMatch(/^queue settled$/m);
    const paymentId = /^uploaded payment (\S+) (\S+)$/m.exec(last);
    expect(paymentId?.[1]).toBe(recorded.filter(({ entry }) => entry.kind === "payment")[1]?.entry.id);

    const orders = await platformList("orders", device, store, manager);
    expect(orders.map((order) => Date.parse(order.occurred_at)).sort()).toEqual(timesOf(recorded, "order").sort());
    const payments = await platformList("payments", device, store, manager);
    expect(payments).toHaveLength(4);
    expect(payments.map((payment) => payment.id)).toContain(paymentId?.[2]);
    expect(await dayTotals(store, manager, timesOf(recorded, "payment"))).toEqual({ count: 4, gross: sold });
  }, 60_000);
});

import { createHmac, randomUUID } from "node:crypto";
import { logger } from "@pos-cloud/common";
import { callSandbox, notificationReceiver, testAccount } from "@pos-cloud/test-support/sandbox-provider";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { MerchantAccount } from "./auth";
import { type RunningSandbox, type SandboxOptions, startSandbox } from "./sandbox";

const webhookSecret = "whsec-test-secret";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function sandboxWith(options: Partial<SandboxOptions> & { accounts: MerchantAccount[] }) {
  const sandbox: RunningSandbox = await startSandbox({ webhookSecret, retryDelaysMs: [0, 0], ...options });
  cleanups.push(() => sandbox.close());
  return sandbox;
}

async function receiver(statuses: number[] = []) {
  const r = await notificationReceiver(statuses);
  cleanups.push(r.close);
  return r;
}

const createBody = (amount: number, notify_url?: string) => ({
  amount,
  currency: "JPY",
  reference: `pi_${randomUUID()}`,
  mode: "mpm",
  ...(notify_url ? { notify_url } : {}),
});

describe("sandbox QR provider API", () => {
  it("returns the QR made the first time for a repeated idempotency key, and refuses it for another payment", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account] });
    const body = createBody(1500);
    const create = (payment: object, key: string) =>
      callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", payment, { headers: { "idempotency-key": key } });
    const first = await create(body, "ca-1");
    expect((await create(body, "ca-1")).body.transaction_id).toBe(first.body.transaction_id);
    expect((await create(body, "ca-2")).body.transaction_id).not.toBe(first.body.transaction_id);
    expect((await create({ ...body, amount: 1600 }, "ca-1")).status).toBe(409);
  });

  it("creates a payable QR, and the customer's payment succeeds with a signed notification", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account] });
    const merchant = await receiver();
    const created = await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(1200, merchant.url));
    expect(created.status).toBe(201);
    const id = created.body.transaction_id as string;
    expect(created.body).toMatchObject({ status: "pending", amount: 1200, currency: "JPY", refunded_amount: 0 });
    expect(created.body.qr_content).toBe(`${sandbox.baseUrl}/pay/${id}`);
    expect(Date.parse(created.body.expires_at)).toBeGreaterThan(Date.parse(created.body.created_at));

    const page = await fetch(created.body.qr_content);
    expect(await page.text()).toContain("<button");

    const paid = await fetch(`${sandbox.baseUrl}/sandbox/transactions/${id}/pay`, { method: "POST" });
    expect(paid.status).toBe(200);
    expect(((await paid.json()) as any).status).toBe("paid");
    const status = await callSandbox(sandbox.baseUrl, account, "GET", `/v1/payments/${id}`);
    expect(status.body.status).toBe("paid");

    await vi.waitFor(() => expect(merchant.received).toHaveLength(1));
    const [notification] = merchant.received;
    const expected = createHmac("sha256", webhookSecret).update(notification!.raw).digest("hex");
    expect(notification!.headers["x-sandbox-signature"]).toBe(expected);
    expect(notification!.body).toMatchObject({
      event_type: "payment.succeeded",
      transaction_id: id,
      status: "paid",
      amount: 1200,
      currency: "JPY",
    });
    expect(notification!.body.event_id).toMatch(/^evt_/);
    expect(Date.parse(notification!.body.timestamp)).not.toBeNaN();
  });

  it("takes payment from its pay page's form, and shows the page again on a second tap", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account] });
    const { body } = await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(1500));
    const tap = () =>
      fetch(body.qr_content, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "",
        redirect: "manual",
      });
    for (const response of [await tap(), await tap()]) {
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(`/pay/${body.transaction_id}`);
    }
    const page = await (await fetch(body.qr_content)).text();
    expect(page).toContain("<strong>paid</strong>");
    expect(page).not.toContain("<button");
  });

  it("declines amounts ending in 13 and 14 with their reasons", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account] });
    for (const [amount, code] of [
      [1013, "card_declined"],
      [2014, "insufficient_funds"],
    ] as const) {
      const { body } = await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(amount));
      await fetch(`${sandbox.baseUrl}/sandbox/transactions/${body.transaction_id}/pay`, { method: "POST" });
      const status = await callSandbox(sandbox.baseUrl, account, "GET", `/v1/payments/${body.transaction_id}`);
      expect(status.body).toMatchObject({ status: "declined", decline_code: code });
    }
  });

  it("decides the outcome only after the processing delay, on the sandbox's clock", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account], processingDelayMs: 30_000, now: () => now });
    const call = (method: string, path: string, body?: unknown) =>
      callSandbox(sandbox.baseUrl, account, method, path, body, { nowMs: now });
    const { body } = await call("POST", "/v1/payments", createBody(500));
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${body.transaction_id}/pay`, { method: "POST" });
    expect((await call("GET", `/v1/payments/${body.transaction_id}`)).body.status).toBe("processing");
    now += 30_000;
    expect((await call("GET", `/v1/payments/${body.transaction_id}`)).body.status).toBe("paid");
  });

  it("notifies that the customer approved, then the outcome when the delay has passed, unasked", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account], processingDelayMs: 20 });
    const merchant = await receiver();
    const { body } = await callSandbox(
      sandbox.baseUrl,
      account,
      "POST",
      "/v1/payments",
      createBody(1014, merchant.url),
    );
    const paying = await fetch(`${sandbox.baseUrl}/sandbox/transactions/${body.transaction_id}/pay`, {
      method: "POST",
    });
    expect(((await paying.json()) as any).status).toBe("processing");
    await vi.waitFor(() => expect(merchant.received).toHaveLength(2));
    const byType = Object.fromEntries(merchant.received.map((note) => [note.body.event_type, note.body]));
    expect(byType["payment.processing"]).toMatchObject({ status: "processing" });
    expect(byType["payment.failed"]).toMatchObject({ status: "declined", decline_code: "insufficient_funds" });
  });

  it("expires an unpaid QR, tells the merchant, and refuses to take payment for it", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account], expiresInSeconds: 60, now: () => now });
    const merchant = await receiver();
    const shorter = await callSandbox(
      sandbox.baseUrl,
      account,
      "POST",
      "/v1/payments",
      { ...createBody(800), expires_in_seconds: 30 },
      { nowMs: now },
    );
    expect(Date.parse(shorter.body.expires_at) - now).toBe(30_000);
    const { body } = await callSandbox(
      sandbox.baseUrl,
      account,
      "POST",
      "/v1/payments",
      createBody(800, merchant.url),
      {
        nowMs: now,
      },
    );
    now += 60_000;
    const status = await callSandbox(
      sandbox.baseUrl,
      account,
      "GET",
      `/v1/payments/${body.transaction_id}`,
      undefined,
      {
        nowMs: now,
      },
    );
    expect(status.body.status).toBe("expired");
    const pay = await fetch(`${sandbox.baseUrl}/sandbox/transactions/${body.transaction_id}/pay`, { method: "POST" });
    expect(pay.status).toBe(409);
    await vi.waitFor(() => expect(merchant.received.map((n) => n.body.event_type)).toEqual(["payment.expired"]));
  });

  it("cancels a pending payment and nothing after it is paid", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account] });
    const first = (await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(700))).body;
    const cancelled = await callSandbox(
      sandbox.baseUrl,
      account,
      "POST",
      `/v1/payments/${first.transaction_id}/cancel`,
    );
    expect(cancelled.body.status).toBe("cancelled");
    const pay = await fetch(`${sandbox.baseUrl}/sandbox/transactions/${first.transaction_id}/pay`, { method: "POST" });
    expect(pay.status).toBe(409);

    const second = (await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(700))).body;
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${second.transaction_id}/pay`, { method: "POST" });
    const refused = await callSandbox(sandbox.baseUrl, account, "POST", `/v1/payments/${second.transaction_id}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("invalid_state");
  });

  it("refunds in parts up to the amount and never beyond, notifying each refund", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account] });
    const merchant = await receiver();
    const { body } = await callSandbox(
      sandbox.baseUrl,
      account,
      "POST",
      "/v1/payments",
      createBody(1000, merchant.url),
    );
    const id = body.transaction_id as string;
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${id}/pay`, { method: "POST" });
    const refund = (amount: number, key?: string) =>
      callSandbox(
        sandbox.baseUrl,
        account,
        "POST",
        `/v1/payments/${id}/refunds`,
        { amount },
        {
          headers: key ? { "idempotency-key": key } : {},
        },
      );

    const first = await refund(300, "r-1");
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ amount: 300, status: "succeeded", transaction: { refunded_amount: 300 } });
    expect((await refund(300, "r-1")).body.refund_id).toBe(first.body.refund_id);
    const tooMuch = await refund(701);
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error.code).toBe("refund_exceeds_amount");
    const rest = await refund(700);
    expect(rest.body.transaction).toMatchObject({ status: "refunded", refunded_amount: 1000 });
    expect((await refund(1)).status).toBe(409);

    await vi.waitFor(() => expect(merchant.received).toHaveLength(3));
    expect(merchant.received.map((n) => [n.body.event_type, n.body.refunded_amount]).sort()).toEqual([
      ["payment.refunded", 1000],
      ["payment.refunded", 300],
      ["payment.succeeded", 0],
    ]);
  });

  it("answers 401 to wrong credentials or signatures and 404 for another merchant's transaction", async () => {
    const account = testAccount();
    const other = testAccount();
    const sandbox = await sandboxWith({ accounts: [account, other] });
    const { body } = await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(100));
    const path = `/v1/payments/${body.transaction_id}`;
    const get = (who: MerchantAccount, nowMs?: number) =>
      callSandbox(sandbox.baseUrl, who, "GET", path, undefined, { nowMs });
    expect((await get({ ...account, api_key: "key_unknown" })).status).toBe(401);
    expect((await get({ ...account, api_secret: other.api_secret })).status).toBe(401);
    expect((await get({ ...account, merchant_id: other.merchant_id })).status).toBe(401);
    expect((await get(account, Date.now() - 10 * 60_000)).status).toBe(401);
    const unsigned = await fetch(`${sandbox.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${account.api_key}` },
    });
    expect(unsigned.status).toBe(401);
    expect((await get(other)).status).toBe(404);
    expect((await get(account)).status).toBe(200);
  });

  it("retries a notification the merchant did not accept, with the same event", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account] });
    const merchant = await receiver([500, 503]);
    const { body } = await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(900, merchant.url));
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${body.transaction_id}/pay`, { method: "POST" });
    await vi.waitFor(() => expect(merchant.received).toHaveLength(3));
    expect(new Set(merchant.received.map((n) => n.raw)).size).toBe(1);
  });

  it("gives up after the last retry with one warning, so an endpoint that never accepts is not hammered", async () => {
    const warn = vi.spyOn(logger, "warn").mockImplementation(() => undefined);
    cleanups.push(async () => warn.mockRestore());
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account], retryDelaysMs: [0] });
    const merchant = await receiver([500, 500, 500, 500]);
    const { body } = await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(900, merchant.url));
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${body.transaction_id}/pay`, { method: "POST" });
    await vi.waitFor(() => expect(warn).toHaveBeenCalledTimes(1));
    // The warning is written after the last answer arrived: nothing more is on its way.
    expect(merchant.received).toHaveLength(2);
    expect(warn.mock.calls[0]![1]).toMatchObject({ attempts: 2, failure: "HTTP 500" });
  });

  it("sends nothing to a polling account, which learns the outcome by asking", async () => {
    const polling = testAccount("polling");
    const webhook = testAccount("webhook");
    const sandbox = await sandboxWith({ accounts: [polling, webhook] });
    const merchant = await receiver();
    const polled = (await callSandbox(sandbox.baseUrl, polling, "POST", "/v1/payments", createBody(600, merchant.url)))
      .body;
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${polled.transaction_id}/pay`, { method: "POST" });
    expect(
      (await callSandbox(sandbox.baseUrl, polling, "GET", `/v1/payments/${polled.transaction_id}`)).body.status,
    ).toBe("paid");
    // Notifications leave in order: once the later one arrived, an earlier one for the polling account would have too.
    const later = (await callSandbox(sandbox.baseUrl, webhook, "POST", "/v1/payments", createBody(600, merchant.url)))
      .body;
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${later.transaction_id}/pay`, { method: "POST" });
    await vi.waitFor(() => expect(merchant.received).toHaveLength(1));
    expect(merchant.received[0]!.body.transaction_id).toBe(later.transaction_id);
  });

  it("can send the nested notification shape instead", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account], notificationShape: "nested" });
    const merchant = await receiver();
    const { body } = await callSandbox(
      sandbox.baseUrl,
      account,
      "POST",
      "/v1/payments",
      createBody(1013, merchant.url),
    );
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${body.transaction_id}/pay`, { method: "POST" });
    await vi.waitFor(() => expect(merchant.received).toHaveLength(1));
    expect(merchant.received[0]!.body).toMatchObject({
      event: "payment.failed",
      data: { object: { id: body.transaction_id, status: "failed", failure_code: "card_declined", currency: "jpy" } },
    });
  });

  it("rejects invalid create requests without creating anything", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account] });
    for (const bad of [
      { ...createBody(0) },
      { ...createBody(10), currency: "yen" },
      { ...createBody(10), mode: "nfc" },
    ]) {
      const response = await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", bad);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
    }
  });
});

describe("sandbox faults", () => {
  it("fails the next merchant calls as told, in each protocol's shape, then answers again", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account] });
    const tell = (fault: unknown) =>
      fetch(`${sandbox.baseUrl}/sandbox/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(fault),
      });
    expect((await tell({ status: 503, times: 2 })).status).toBe(201);
    const failed = await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(1500));
    expect(failed).toMatchObject({ status: 503, body: { error: { code: "unavailable" } } });
    const paypay = await fetch(`${sandbox.baseUrl}/v2/codes`, { method: "POST" });
    expect(paypay.status).toBe(503);
    expect(await paypay.json()).toMatchObject({ resultInfo: { code: "MAINTENANCE_MODE", codeId: "08100999" } });
    const created = await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(1500));
    expect(created.status).toBe(201);
    for (const bad of [{}, { status: 404 }, { delay_ms: -1 }, { status: 500, times: 0 }]) {
      expect((await tell(bad)).status).toBe(400);
    }
    expect(
      (await callSandbox(sandbox.baseUrl, account, "GET", `/v1/payments/${created.body.transaction_id}`)).status,
    ).toBe(200);
  });
});

describe("the sandbox's list and overrides, for reconciliation", () => {
  it("lists a merchant's window of transactions, changes one untold when a test asks, and refuses bad asks", async () => {
    const account = testAccount();
    const sandbox = await sandboxWith({ accounts: [account] });
    const created = await callSandbox(sandbox.baseUrl, account, "POST", "/v1/payments", createBody(1500));
    const id = created.body.transaction_id as string;
    const override = (body: unknown) =>
      fetch(`${sandbox.baseUrl}/sandbox/transactions/${id}/override`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await override({ status: "paid", refund_amount: 500 })).status).toBe(200);
    const hour = 3_600_000;
    const window = (from: number, to: number) =>
      `/v1/payments?created_from=${new Date(from).toISOString()}&created_to=${new Date(to).toISOString()}`;
    const listed = await callSandbox(sandbox.baseUrl, account, "GET", window(Date.now() - hour, Date.now() + hour));
    expect(listed.body.data).toEqual([
      expect.objectContaining({ transaction_id: id, status: "paid", amount: 1500, refunded_amount: 500 }),
    ]);
    const before = await callSandbox(sandbox.baseUrl, account, "GET", window(Date.now() - 2 * hour, Date.now() - hour));
    expect(before.body.data).toEqual([]);
    for (const bad of [{}, { status: "declined" }, { refund_amount: 0 }, { refund_amount: 1001 }])
      expect((await override(bad)).status, JSON.stringify(bad)).toBeGreaterThanOrEqual(400);
    expect((await callSandbox(sandbox.baseUrl, account, "GET", `/v1/payments/${id}`)).body).toMatchObject({
      status: "paid",
      refunded_amount: 500,
    });
    for (const query of ["/v1/payments", "/v1/payments?created_from=yesterday&created_to=today"])
      expect((await callSandbox(sandbox.baseUrl, account, "GET", query)).status).toBe(400);
  });
});

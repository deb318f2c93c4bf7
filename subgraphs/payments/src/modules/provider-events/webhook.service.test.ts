import { createHmac, randomBytes } from "node:crypto";
import { type Caller, logger } from "@pos-cloud/common";
import { type MerchantAccount, type RunningSandbox, startSandbox } from "@pos-cloud/sandbox-provider";
import { intentBody, movableClock, openTestPayments, seedPartner } from "@pos-cloud/test-support/payments";
import { testAccount } from "@pos-cloud/test-support/sandbox-provider";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { PaymentsDeps } from "../../index";

const secret = "webhook-service-test-secret";
const service: Caller = { type: "service", id: "test", scopes: [] };
const clock = movableClock();
let deps: PaymentsDeps;
let sandbox: RunningSandbox;
let account: MerchantAccount;

beforeAll(async () => {
  account = testAccount("webhook");
  sandbox = await startSandbox({ webhookSecret: secret, accounts: [account], retryDelaysMs: [] });
  deps = await openTestPayments(clock);
  // Notifications go nowhere (nothing listens on port 1): the test plays them itself.
  await deps.providers.configure(
    [
      { code: "sandbox", adapter: "sandbox", options: { follow: "webhook" } },
      { code: "paypay", adapter: "paypay", options: { baseUrl: "sandbox" } },
    ],
    {
      gatewayUrl: "http://127.0.0.1:1",
      sandbox: { baseUrl: sandbox.baseUrl, webhookSecret: secret },
    },
  );
});
afterAll(async () => {
  await deps?.close();
  await sandbox?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function confirmedIntent(body: Record<string, unknown> = {}) {
  const { merchant_id, api_key, api_secret } = account;
  const { caller } = await seedPartner(deps, [
    { provider_code: "sandbox", credentials: { merchant_id, api_key, api_secret }, is_active: true },
  ]);
  const { payment_intent, payment_token } = await deps.paymentIntents.create(caller, intentBody(body));
  await deps.confirmations.confirm(payment_intent.id, { payment_token: payment_token!.token, provider: "sandbox" });
  return deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id: payment_intent.id } });
}

function signedNotification(transaction_id: string, status: string, extra: Record<string, unknown> = {}) {
  const raw = JSON.stringify({
    event_id: `evt_${randomBytes(8).toString("hex")}`,
    event_type: `payment.${status}`,
    transaction_id,
    status,
    amount: 1200,
    currency: "JPY",
    timestamp: clock().toISOString(),
    ...extra,
  });
  const signature = createHmac("sha256", secret).update(raw).digest("hex");
  return { raw: Buffer.from(raw).toString("base64"), headers: { "x-sandbox-signature": signature } };
}

function signedNested(transaction_id: string, created: Date) {
  const raw = JSON.stringify({
    id: `evt_${randomBytes(8).toString("hex")}`,
    event: "payment.succeeded",
    created: Math.floor(created.getTime() / 1000),
    data: { object: { id: transaction_id, status: "succeeded", amount: 1200, currency: "jpy" } },
  });
  const signature = createHmac("sha256", secret).update(raw).digest("hex");
  return { raw: Buffer.from(raw).toString("base64"), headers: { "x-sandbox-signature": signature } };
}

const eventsOf = async (aggregate_id: string) =>
  (await deps.prisma.outboxEvent.findMany({ where: { aggregate_id }, orderBy: { id: "asc" } })).map(
    (event) => event.event_type,
  );

describe("inbound provider notifications", () => {
  it("moves to processing when the customer approved, then to the outcome; a late processing note is stale", async () => {
    const intent = await confirmedIntent();
    const processing = signedNotification(intent.provider_transaction_id!, "processing");
    expect(await deps.webhooks.receive("sandbox", processing.raw, processing.headers)).toMatchObject({
      result: "applied",
    });
    expect(await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id: intent.id } })).toMatchObject({
      status: "processing",
    });
    const paid = signedNotification(intent.provider_transaction_id!, "paid");
    expect(await deps.webhooks.receive("sandbox", paid.raw, paid.headers)).toMatchObject({ result: "applied" });
    const late = signedNotification(intent.provider_transaction_id!, "processing");
    expect(await deps.webhooks.receive("sandbox", late.raw, late.headers)).toMatchObject({ result: "stale" });
    expect(await eventsOf(intent.id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.processing",
      "payment_intent.succeeded",
    ]);
  });

  it("applies a paid notification once, with its event, ledger row and received record", async () => {
    const intent = await confirmedIntent();
    const paid = signedNotification(intent.provider_transaction_id!, "paid");
    expect(await deps.webhooks.receive("sandbox", paid.raw, paid.headers)).toEqual({
      received: true,
      result: "applied",
    });
    expect(await deps.webhooks.receive("sandbox", paid.raw, paid.headers)).toMatchObject({ result: "duplicate" });
    const declined = signedNotification(intent.provider_transaction_id!, "declined", { decline_code: "card_declined" });
    expect(await deps.webhooks.receive("sandbox", declined.raw, declined.headers)).toMatchObject({ result: "stale" });
    expect(await eventsOf(intent.id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.succeeded",
    ]);
    const ledger = await deps.prisma.ledgerTransaction.findMany({
      where: { payment_intent_id: intent.id },
      orderBy: { id: "asc" },
    });
    expect(ledger.map((row) => row.type)).toEqual(["qr_created", "paid"]);
    const received = await deps.prisma.outboxEvent.count({
      where: { event_type: "provider_webhook.received", aggregate_type: "provider_webhook" },
    });
    expect(received).toBeGreaterThanOrEqual(2);
  });

  it("refuses a wrong signature before reading the body", async () => {
    const intent = await confirmedIntent();
    const paid = signedNotification(intent.provider_transaction_id!, "paid");
    await expect(
      deps.webhooks.receive("sandbox", paid.raw, { "x-sandbox-signature": "00".repeat(32) }),
    ).rejects.toMatchObject({ code: "unauthorized" });
    await expect(deps.webhooks.receive("sandbox", Buffer.from("{}").toString("base64"), {})).rejects.toMatchObject({
      code: "unauthorized",
    });
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id: intent.id } })).status).toBe(
      "requires_action",
    );
  });

  it("dead-letters what it cannot apply, writing nothing else, and applies it on a replay once it can", async () => {
    const transaction_id = `sbx_late_${randomBytes(4).toString("hex")}`;
    const paid = signedNotification(transaction_id, "paid");
    expect(await deps.webhooks.receive("sandbox", paid.raw, paid.headers)).toMatchObject({
      result: "dead_lettered",
    });
    const letter = (await deps.webhooks.deadLetters(service)).find(
      (row) => row.raw_body === Buffer.from(paid.raw, "base64").toString(),
    );
    expect(letter).toMatchObject({ provider: "sandbox", resolved_at: null });
    expect(await deps.prisma.providerWebhookEvent.count({ where: { provider_transaction_id: transaction_id } })).toBe(
      0,
    );
    expect(await deps.prisma.outboxEvent.count({ where: { aggregate_id: `sandbox:${letter!.event_id}` } })).toBe(0);

    // The intent the notification speaks of turns up (a confirm that committed late).
    const intent = await confirmedIntent();
    await deps.prisma.paymentIntent.update({
      where: { id: intent.id },
      data: { provider_transaction_id: transaction_id },
    });
    const replay = await deps.webhooks.replay(service, letter!.id);
    expect(replay.result).toBe("applied");
    expect(replay.dead_letter.resolved_at).toBeInstanceOf(Date);
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id: intent.id } })).status).toBe("succeeded");
    expect((await deps.webhooks.deadLetters(service)).map((row) => row.id)).not.toContain(letter!.id);
    await expect(deps.webhooks.replay({ type: "partner", id: "1", scopes: [] }, letter!.id)).rejects.toMatchObject({
      code: "forbidden",
    });
  });

  it.each([
    ["amount", { amount: 1 }],
    ["currency", { currency: "USD" }],
  ])("dead-letters a paid notification whose %s is not the intent's, with an alert", async (field, extra) => {
    const alerts = vi.spyOn(logger, "error");
    const intent = await confirmedIntent({ amount: 2222 });
    const forged = signedNotification(intent.provider_transaction_id!, "paid", { amount: 2222, ...extra });
    expect(await deps.webhooks.receive("sandbox", forged.raw, forged.headers)).toEqual({
      received: true,
      result: "dead_lettered",
    });
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id: intent.id } })).status).toBe(
      "requires_action",
    );
    expect(await eventsOf(intent.id)).toEqual(["payment_intent.created", "payment_intent.requires_action"]);
    const letter = (await deps.webhooks.deadLetters(service)).find(
      (row) => row.raw_body === Buffer.from(forged.raw, "base64").toString(),
    );
    expect(letter).toMatchObject({ attempts: 1, last_error: expect.stringContaining(field) });
    expect(alerts).toHaveBeenCalledWith(
      expect.any(String),
      expect.objectContaining({
        alert: "provider_notification_dead_lettered",
        reason: expect.stringMatching(new RegExp(`${field} .*${intent.id}`)),
      }),
    );
    // A replay cannot make it fit: the letter stays open.
    expect((await deps.webhooks.replay(service, letter!.id)).result).toBe("rejected");
  });

  it("refuses notifications older (or newer) than the provider's window, in both shapes", async () => {
    const intent = await confirmedIntent();
    const transaction = intent.provider_transaction_id!;
    const twoDaysAgo = new Date(clock().getTime() - 2 * 86_400_000);
    for (const note of [
      signedNotification(transaction, "paid", { timestamp: twoDaysAgo.toISOString() }),
      signedNotification(transaction, "paid", { timestamp: new Date(clock().getTime() + 3_600_000).toISOString() }),
      signedNested(transaction, twoDaysAgo),
    ]) {
      await expect(deps.webhooks.receive("sandbox", note.raw, note.headers)).rejects.toMatchObject({
        code: "unauthorized",
        details: { field: "timestamp", max_age_seconds: 600 },
      });
    }
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id: intent.id } })).status).toBe(
      "requires_action",
    );
    // Within the window (the sandbox retries for about 3 minutes), the nested shape is applied.
    const late = signedNested(transaction, new Date(clock().getTime() - 300_000));
    expect(await deps.webhooks.receive("sandbox", late.raw, late.headers)).toMatchObject({ result: "applied" });
  });

  it("refunds a payment that reaches an expired intent at the provider, once, with ledger rows and an alert", async () => {
    const alerts = vi.spyOn(logger, "error");
    const intent = await confirmedIntent();
    const transaction = intent.provider_transaction_id!;
    // The customer pays; the notification is delayed past the intent's expiry, which a read applies.
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${transaction}/pay`, { method: "POST" });
    clock.advance(31 * 60_000);
    await deps.paymentIntents.list({ type: "partner", id: String(intent.client_partner_id), scopes: [] }, {});
    const paid = signedNotification(transaction, "paid");
    expect(await deps.webhooks.receive("sandbox", paid.raw, paid.headers)).toMatchObject({ result: "late_payment" });
    const again = signedNotification(transaction, "paid");
    expect(await deps.webhooks.receive("sandbox", again.raw, again.headers)).toMatchObject({ result: "stale" });

    expect(await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id: intent.id } })).toMatchObject({
      status: "cancelled",
      failure_code: "expired",
    });
    const refunds = await deps.prisma.refund.findMany({ where: { payment_intent_id: intent.id } });
    expect(refunds).toEqual([
      expect.objectContaining({ status: "succeeded", amount: 1200, provider_refund_id: expect.any(String) }),
    ]);
    const ledger = await deps.prisma.ledgerTransaction.findMany({
      where: { payment_intent_id: intent.id },
      orderBy: { id: "asc" },
    });
    expect(ledger.map((row) => [row.type, row.status, row.amount, row.refund_id])).toEqual([
      ["qr_created", "succeeded", 1200, null],
      ["cancelled", "succeeded", 1200, null],
      ["paid", "succeeded", 1200, refunds[0]!.id],
      ["refunded", "succeeded", 1200, refunds[0]!.id],
    ]);
    expect(await eventsOf(intent.id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.cancelled",
      "late_payment.received",
      "late_payment.refunded",
    ]);
    const { merchant_id, api_key, api_secret } = account;
    const atProvider = await deps.providers
      .get("sandbox")
      .getPaymentStatus(transaction, { merchant_id, api_key, api_secret });
    expect(atProvider).toMatchObject({ status: "refunded", refunded_amount: 1200 });
    expect(alerts).toHaveBeenCalledWith(
      expect.any(String),
      expect.objectContaining({ alert: "late_payment", payment_intent_id: intent.id, refund_id: refunds[0]!.id }),
    );
  });

  it("answers an unknown provider path with not_found", async () => {
    await expect(deps.webhooks.receive("nobody", "", {})).rejects.toMatchObject({ code: "not_found" });
  });

  it("takes PayPay's unsigned notification only as a prompt to read the payment from PayPay's API", async () => {
    const { merchant_id, api_key, api_secret } = account;
    const { caller } = await seedPartner(deps, [
      { provider_code: "paypay", credentials: { merchant_id, api_key, api_secret }, is_active: true },
    ]);
    const { payment_intent, payment_token } = await deps.paymentIntents.create(caller, intentBody());
    const qr = await deps.confirmations.confirm(payment_intent.id, {
      payment_token: payment_token!.token,
      provider: "paypay",
    });
    const intent = () => deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id: payment_intent.id } });
    const { provider_transaction_id } = await intent();
    const later = new Date(clock().getTime() + 3_600_000);
    await deps.prisma.paymentIntent.update({ where: { id: payment_intent.id }, data: { next_poll_at: later } });
    const notify = (body: Record<string, unknown>) =>
      deps.webhooks.receive("paypay", Buffer.from(JSON.stringify(body)).toString("base64"), {});
    // Anyone may post this: it claims a completed payment of 1 yen, with no signature to check.
    const forged = { notification_type: "Transaction", merchant_order_id: provider_transaction_id, state: "COMPLETED" };
    expect(await notify({ ...forged, order_amount: 1 })).toEqual({ received: true, result: "prompted" });
    expect((await intent()).next_poll_at.getTime()).toBeLessThanOrEqual(clock().getTime());
    await deps.poller.pollOnce();
    expect(await intent()).toMatchObject({ status: "requires_action" });

    // Paid at PayPay (the sandbox's PayPay mode): the next notification's read finds it.
    const transaction = new URL(qr.qr_content).pathname.split("/").at(-1);
    expect((await fetch(`${sandbox.baseUrl}/sandbox/transactions/${transaction}/pay`, { method: "POST" })).status).toBe(
      200,
    );
    await deps.prisma.paymentIntent.update({ where: { id: payment_intent.id }, data: { next_poll_at: later } });
    expect(await notify(forged)).toEqual({ received: true, result: "prompted" });
    await deps.poller.pollOnce();
    expect(await intent()).toMatchObject({ status: "succeeded", amount: 1200 });

    expect(await notify(forged)).toEqual({ received: true, result: "ignored" });
    expect(await notify({ notification_type: "Cashback", merchant_order_id: "x" })).toEqual({
      received: true,
      result: "ignored",
    });
    await expect(notify({ notification_type: "Transaction" })).rejects.toMatchObject({ details: { field: "body" } });
  });
});

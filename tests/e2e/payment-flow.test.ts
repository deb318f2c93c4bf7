import { createHmac, randomBytes } from "node:crypto";
import { type Caller, logger } from "@pos-cloud/common";
import { createPartnerClient, PartnerApiError, type PartnerClient } from "@pos-cloud/partner-sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { DemoProviders } from "../../apps/platform/src/demo";
import { call } from "../support/gateway";
import { movableClock } from "../support/payments";
import { inProcessOnly, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { callSandbox } from "../support/sandbox-provider";
import { type SeededStorePartner, seed } from "../support/seed";

const clock = movableClock();
let platform: TestPlatform;
let partner: SeededStorePartner;
/** The partner's calls go through the partner SDK, as a partner's own server makes them. */
let partnerApi: PartnerClient;
/** The sandbox QR provider that notifies the gateway. */
let sandbox: DemoProviders["provider"];

beforeAll(async () => {
  platform = await startTestPlatform({
    clock,
    webhookRetryDelaysMs: [0],
    paymentsPollIntervalMs: 60_000,
    demo: false,
  });
  partner = await seed(platform).storePartner();
  partnerApi = sdkOf(partner);
  sandbox = seed(platform).providers().provider;
});
afterAll(() => platform?.close());
afterEach(() => {
  vi.restoreAllMocks();
});

const ref = () => `ref-${randomBytes(6).toString("hex")}`;

const sdkOf = (key: { client_id: string; secret: string }) =>
  createPartnerClient({ baseUrl: platform.baseUrl, clientId: key.client_id, secret: key.secret });

/** A call's status and body, a refusal's too (the SDK throws those), for a test that expects either. */
async function answer(
  request: Promise<{ data?: unknown; response: Response }>,
): Promise<{ status: number; body: any }> {
  try {
    const { data, response } = await request;
    return { status: response.status, body: data };
  } catch (error) {
    if (!(error instanceof PartnerApiError)) throw error;
    return { status: error.status, body: error };
  }
}

async function createIntent(amount = 1200, methods: ("qr_mpm" | "credit_card")[] = ["qr_mpm"]) {
  const { data, response } = await partnerApi.POST("/v1/payment_intents", {
    body: { amount, currency: "JPY", payment_method_types: methods, merchant_ref_id: ref() },
  });
  expect(response.status).toBe(201);
  return { id: data!.id, token: data!.payment_token!.token };
}

const confirm = (id: string, token: string, provider = "sandbox") =>
  call(platform.baseUrl, "POST", `/v1/payment_intents/${id}/confirm`, {
    payment_token: token,
    payment_method_type: "qr_mpm",
    provider,
  });

const retrieve = (id: string, token: string) =>
  call(platform.baseUrl, "GET", `/v1/payment_intents/${id}?payment_token=${encodeURIComponent(token)}`);

const intentRow = (id: string) => platform.payments.prisma.paymentIntent.findUniqueOrThrow({ where: { id } });

/** The customer pays the QR at the sandbox (its pay step, as the CLI does). */
async function pay(providerTransactionId: string) {
  const response = await fetch(`${sandbox.base_url}/sandbox/transactions/${providerTransactionId}/pay`, {
    method: "POST",
  });
  expect(response.status).toBe(200);
}

/** The sandbox notifies asynchronously: waits until the intent leaves requires_action. */
async function settled(id: string) {
  await expect.poll(async () => (await intentRow(id)).status, { timeout: 5000 }).not.toBe("requires_action");
  return intentRow(id);
}

async function confirmedAndPaid(amount = 1200) {
  const { id, token } = await createIntent(amount);
  const confirmed = await confirm(id, token);
  expect(confirmed.status).toBe(200);
  const { provider_transaction_id } = await intentRow(id);
  await pay(provider_transaction_id!);
  return { id, token, provider_transaction_id: provider_transaction_id!, intent: await settled(id) };
}

const ledgerOf = async (payment_intent_id: string) =>
  (
    await platform.payments.prisma.ledgerTransaction.findMany({ where: { payment_intent_id }, orderBy: { id: "asc" } })
  ).map((row) => [row.type, row.amount]);

const eventTypes = async (aggregate_id: string) =>
  (await platform.payments.prisma.outboxEvent.findMany({ where: { aggregate_id }, orderBy: { id: "asc" } })).map(
    (event) => event.event_type,
  );

function notify(body: unknown, secret = sandbox.webhook_secret, provider = "sandbox") {
  const raw = JSON.stringify(body);
  return fetch(`${platform.baseUrl}/v1/webhooks/${provider}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      [`x-${provider}-signature`]: createHmac("sha256", secret).update(raw).digest("hex"),
    },
    body: raw,
  });
}

const flatNotification = (transaction_id: string, status: string, overrides: Record<string, unknown> = {}) => ({
  event_id: `evt_${randomBytes(8).toString("hex")}`,
  event_type: `payment.${status}`,
  transaction_id,
  merchant_id: "m",
  reference: "r",
  status,
  amount: 1200,
  currency: "JPY",
  refunded_amount: 0,
  decline_code: null,
  timestamp: new Date().toISOString(),
  ...overrides,
});

describe("QR payments through the gateway and the sandbox provider", () => {
  it("confirms, is paid, notified and succeeds, with its events in order and its ledger", async () => {
    const { id, token } = await createIntent();
    const confirmed = await confirm(id, token);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({
      payment_id: id,
      qr_content: expect.stringContaining("/pay/"),
      expires_at: expect.any(String),
      provider: "sandbox",
    });
    const { provider_transaction_id, provider_name, status } = await intentRow(id);
    expect({ provider_name, status }).toEqual({ provider_name: "sandbox", status: "requires_action" });
    await pay(provider_transaction_id!);
    expect((await settled(id)).status).toBe("succeeded");
    // The web view follows the payment with its used token; the partner with its signature.
    expect(await retrieve(id, token)).toMatchObject({ status: 200, body: { id, status: "succeeded" } });
    const { data: listed } = await partnerApi.GET("/v1/payment_intents", {
      params: { query: { status: "succeeded", limit: 100 } },
    });
    expect(listed!.find((intent) => intent.id === id)).toMatchObject({ status: "succeeded" });
    expect(await eventTypes(id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.succeeded",
    ]);
    const received = await platform.payments.prisma.outboxEvent.findMany({
      where: { event_type: "provider_webhook.received", aggregate_type: "provider_webhook" },
    });
    const forThisIntent = received.filter((event) => (event.payload as any).provider_webhook.payment_intent_id === id);
    expect(forThisIntent.map((event) => (event.payload as any).provider_webhook.status)).toEqual(["succeeded"]);

    expect(await ledgerOf(id)).toEqual([
      ["qr_created", 1200],
      ["paid", 1200],
    ]);
    const [, paidRow] = await platform.payments.prisma.ledgerTransaction.findMany({
      where: { payment_intent_id: id },
      orderBy: { id: "asc" },
    });
    const detail = await answer(partnerApi.GET("/v1/transactions/{id}", { params: { path: { id: paidRow!.id } } }));
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: paidRow!.id,
      payment_intent_id: id,
      type: "paid",
      status: "succeeded",
      amount: 1200,
      currency: "JPY",
      provider_name: "sandbox",
      provider_transaction_id,
    });
    expect(detail.body.id).toMatch(/^txn_[0-9A-HJKMNP-TV-Z]{26}$/);

    const other = await platform.partners.issueApiKey((await platform.partners.createPartner("other")).id);
    await expect(
      sdkOf(other).GET("/v1/transactions/{id}", { params: { path: { id: paidRow!.id } } }),
    ).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  it("lists an intent's ledger for its payment token: a captured and refunded card payment", async () => {
    const { id, token } = await createIntent(1500, ["credit_card"]);
    const list = () => call(platform.baseUrl, "GET", `/v1/payment_intents/${id}/transactions?payment_token=${token}`);
    expect((await list()).body).toEqual([]);
    const path = { path: { id } };
    const captured = await partnerApi.POST("/v1/payment_intents/{id}/capture", { params: path, body: {} });
    expect(captured.response.status).toBe(200);
    const { data: refunded } = await partnerApi.POST("/v1/payment_intents/{id}/refund", {
      params: path,
      body: { amount: 300, reason: "returned item" },
    });
    expect(refunded).toMatchObject({ amount: 300, status: "succeeded", provider_refund_id: null });
    const ledger = await list();
    expect(ledger.status).toBe(200);
    expect(ledger.body.map((row: any) => [row.type, row.status, row.amount, row.refund_id])).toEqual([
      ["captured", "succeeded", 1500, null],
      ["refunded", "succeeded", 300, refunded!.id],
    ]);
    const wrong = await call(platform.baseUrl, "GET", `/v1/payment_intents/${id}/transactions?payment_token=pt_nope`);
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("invalid_token");
  });

  it.each([
    [1213, "card_declined"],
    [1214, "insufficient_funds"],
  ])("fails an intent of amount %i with %s", async (amount, failure_code) => {
    const { id, intent } = await confirmedAndPaid(amount);
    expect(intent).toMatchObject({ status: "failed", failure_code, failure_message: expect.any(String) });
    expect(await eventTypes(id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.failed",
    ]);
  });

  it("learns a sandbox-poll outcome by polling, not by notification", async () => {
    const { id, token } = await createIntent();
    expect((await confirm(id, token, "sandbox-poll")).status).toBe(200);
    const { provider_transaction_id } = await intentRow(id);
    await pay(provider_transaction_id!);
    // Paid at the provider, which sends no notification: the gateway learns it from its poll alone.
    expect((await intentRow(id)).status).toBe("requires_action");
    expect(await platform.payments.poller.pollOnce()).toBeGreaterThanOrEqual(1);
    expect((await intentRow(id)).status).toBe("succeeded");
    expect(await eventTypes(id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.succeeded",
    ]);
  });

  describe("confirm refuses", () => {
    // In-process only: moves the platform's clock.
    inProcessOnly("a used token, another intent's token and an expired one with 401 invalid_token", async () => {
      const first = await createIntent();
      expect((await confirm(first.id, first.token)).status).toBe(200);
      const again = await confirm(first.id, first.token);
      expect(again.status).toBe(401);
      expect(again.body.code).toBe("invalid_token");

      const second = await createIntent();
      expect((await confirm(second.id, first.token)).body.code).toBe("invalid_token");

      clock.advance(301_000);
      try {
        const expired = await confirm(second.id, second.token);
        expect(expired.status).toBe(401);
        expect(expired.body.code).toBe("invalid_token");
      } finally {
        clock.advance(-301_000);
      }
      expect((await intentRow(second.id)).status).toBe("requires_payment_method");
    });

    it("an unknown provider with 400 on field provider, changing nothing", async () => {
      const { id, token } = await createIntent();
      const refused = await confirm(id, token, "nope");
      expect(refused.status).toBe(400);
      expect(refused.body.details).toMatchObject({ field: "provider" });
      expect((await confirm(id, token)).status).toBe(200);
    });
  });

  describe("inbound webhooks", () => {
    it("refuses a bad signature with 401 and changes nothing", async () => {
      const { id, token } = await createIntent();
      await confirm(id, token);
      const { provider_transaction_id } = await intentRow(id);
      const response = await notify(flatNotification(provider_transaction_id!, "paid"), "wrong-secret");
      expect(response.status).toBe(401);
      expect(((await response.json()) as { code: string }).code).toBe("unauthorized");
      expect((await intentRow(id)).status).toBe("requires_action");
    });

    it("ignores a duplicate event id and a stale status", async () => {
      const { id, token } = await createIntent();
      await confirm(id, token);
      const { provider_transaction_id } = await intentRow(id);
      const paid = flatNotification(provider_transaction_id!, "paid");
      for (let i = 0; i < 2; i++) {
        const response = await notify(paid);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ received: true });
      }
      const stale = await notify(flatNotification(provider_transaction_id!, "declined", { decline_code: "x" }));
      expect(stale.status).toBe(200);
      expect((await intentRow(id)).status).toBe("succeeded");
      expect(await eventTypes(id)).toEqual([
        "payment_intent.created",
        "payment_intent.requires_action",
        "payment_intent.succeeded",
      ]);
    });

    it("keeps a notification it cannot apply as a dead letter that can be listed and replayed", async () => {
      const orphan = flatNotification(`sbx_unknown_${randomBytes(4).toString("hex")}`, "paid");
      const response = await notify(orphan);
      expect(response.status).toBe(200);
      const service: Caller = { type: "service", id: "test", scopes: [] };
      const letters = await platform.payments.webhooks.deadLetters(service);
      const letter = letters.find((row) => row.event_id === orphan.event_id);
      expect(letter).toMatchObject({ provider: "sandbox", attempts: 2, resolved_at: null });
      const replay = await platform.payments.webhooks.replay(service, letter!.id);
      expect(replay.result).toBe("failed");
      expect(replay.dead_letter).toMatchObject({ attempts: 3, resolved_at: null });
      await expect(
        platform.payments.webhooks.deadLetters({ type: "partner", id: "1", scopes: [] }),
      ).rejects.toMatchObject({ code: "forbidden" });
      const anonymous = await postGraphQL(platform.baseUrl, "{ webhookDeadLetters { id } }");
      // No credential at all is UNAUTHENTICATED to a GraphQL client (a partner above is forbidden).
      expect(anonymous.body.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    });
  });

  describe("refunds", () => {
    const refund = (id: string, body: { amount?: number; reason?: string }, key = randomBytes(8).toString("hex")) =>
      answer(
        partnerApi.POST("/v1/payment_intents/{id}/refund", {
          params: { path: { id }, header: { "Idempotency-Key": key } },
          body,
        }),
      );

    it("refunds in parts at the provider, refuses more than is left, and keeps the intent succeeded", async () => {
      const { id } = await confirmedAndPaid();
      const first = await refund(id, { amount: 500, reason: "customer request" });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({
        payment_intent_id: id,
        amount: 500,
        status: "succeeded",
        reason: "customer request",
        provider_refund_id: expect.any(String),
      });
      expect(first.body.id).toMatch(/^re_[0-9A-HJKMNP-TV-Z]{26}$/);
      const over = await refund(id, { amount: 800 });
      expect(over.status).toBe(400);
      expect(over.body.details).toMatchObject({ field: "amount", constraint: "refundable_amount" });
      const rest = await refund(id, {});
      expect(rest.body).toMatchObject({ amount: 700, status: "succeeded" });
      expect((await refund(id, { amount: 1 })).status).toBe(400);
      expect((await intentRow(id)).status).toBe("succeeded");
      expect(await eventTypes(id)).toEqual([
        "payment_intent.created",
        "payment_intent.requires_action",
        "payment_intent.succeeded",
        "payment_intent.cancelling",
        "payment_intent.succeeded",
        "payment_intent.cancelling",
        "payment_intent.succeeded",
      ]);
      expect(await ledgerOf(id)).toEqual([
        ["qr_created", 1200],
        ["paid", 1200],
        ["refunded", 500],
        ["refunded", 700],
      ]);
    });

    it("refuses a refund of an intent that has not succeeded", async () => {
      const { id } = await createIntent();
      const refused = await refund(id, { amount: 100 });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("invalid_state");
    });

    it("never refunds more than the amount under concurrent requests", async () => {
      const { id } = await confirmedAndPaid();
      // Six requests, not six copies of one: a copy of a signed request is a replay, refused before it could race.
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => refund(id, { amount: 400, reason: `attempt ${i}` })),
      );
      const refunded = answers.filter((answer) => answer.status === 201);
      expect(refunded.length).toBeGreaterThan(0);
      for (const answer of answers) expect([201, 400, 409]).toContain(answer.status);
      const rows = await platform.payments.prisma.refund.findMany({
        where: { payment_intent_id: id, status: "succeeded" },
      });
      expect(rows.reduce((sum, row) => sum + row.amount, 0)).toBe(refunded.length * 400);
      expect(refunded.length * 400).toBeLessThanOrEqual(1200);
      expect((await intentRow(id)).status).toBe("succeeded");
    });
  });
});

describe("money safety: cancelled QRs and what providers tell the gateway", () => {
  const service: Caller = { type: "service", id: "test", scopes: [] };
  const cancel = (id: string, token: string) =>
    call(platform.baseUrl, "POST", `/v1/payment_intents/${id}/cancel`, { payment_token: token });
  const atSandbox = async (transaction_id: string) =>
    (
      await callSandbox(
        sandbox.base_url,
        { ...sandbox.credentials, delivery: "webhook" },
        "GET",
        `/v1/payments/${transaction_id}`,
      )
    ).body;

  /** A QR intent confirmed with `provider`; the customer has not paid yet. */
  async function confirmed(provider = "sandbox", amount = 1200) {
    const { id, token } = await createIntent(amount);
    expect((await confirm(id, token, provider)).status).toBe(200);
    return { id, token, provider_transaction_id: (await intentRow(id)).provider_transaction_id! };
  }

  it("cancels the QR at the provider first, so the customer can no longer pay it", async () => {
    const { id, token, provider_transaction_id } = await confirmed();
    expect(await cancel(id, token)).toMatchObject({ status: 200, body: { id, status: "cancelled" } });
    const paid = await fetch(`${sandbox.base_url}/sandbox/transactions/${provider_transaction_id}/pay`, {
      method: "POST",
    });
    expect(paid.status).toBe(409);
    expect((await atSandbox(provider_transaction_id)).status).toBe("cancelled");
    expect((await intentRow(id)).status).toBe("cancelled");
    expect(await ledgerOf(id)).toEqual([
      ["qr_created", 1200],
      ["cancelled", 1200],
    ]);
  });

  it("refuses to cancel a QR the customer already paid, and the intent follows the payment", async () => {
    // The polled provider sends no notification: only the cancel's question reveals the payment.
    const { id, token, provider_transaction_id } = await confirmed("sandbox-poll");
    await pay(provider_transaction_id);
    const refused = await cancel(id, token);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: "invalid_state",
      details: { status: "succeeded", provider_status: "succeeded" },
    });
    expect(await retrieve(id, token)).toMatchObject({ status: 200, body: { status: "succeeded" } });
    expect(await eventTypes(id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.succeeded",
    ]);
    expect(await ledgerOf(id)).toEqual([
      ["qr_created", 1200],
      ["paid", 1200],
    ]);
  });

  it("refuses the same cancel through GraphQL", async () => {
    const { id, token, provider_transaction_id } = await confirmed("sandbox-poll");
    await pay(provider_transaction_id);
    const refused = await postGraphQL(
      platform.baseUrl,
      "mutation ($id: String!, $token: String!) { cancelPaymentIntent(id: $id, payment_token: $token) { status } }",
      { id, token },
    );
    // Payment-token operations are REST only (`@inaccessible` in the public graph): /graphql has no cancel at all,
    // so nothing ran (the intent waits for the provider's poll).
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: "GRAPHQL_VALIDATION_FAILED" });
    expect((await intentRow(id)).status).toBe("requires_action");
  });

  // In-process only: moves the platform's clock and reads its log.
  inProcessOnly(
    "refunds a payment that reaches an expired intent, with its ledger rows, events and an alert",
    async () => {
      const alerts = vi.spyOn(logger, "error");
      const { id, token, provider_transaction_id } = await confirmed();
      // The intent expires (a signed list sees it past expires_at) while the QR is still open at the provider.
      clock.advance(31 * 60_000);
      try {
        const { data: listed } = await partnerApi.GET("/v1/payment_intents", { params: { query: { limit: 100 } } });
        expect(listed!.find((intent) => intent.id === id)).toMatchObject({
          status: "cancelled",
          failure_code: "expired",
        });
      } finally {
        clock.advance(-31 * 60_000);
      }
      await pay(provider_transaction_id);
      const refundOf = () => platform.payments.prisma.refund.findFirst({ where: { payment_intent_id: id } });
      await expect.poll(async () => (await refundOf())?.status, { timeout: 5000 }).toBe("succeeded");
      expect(await refundOf()).toMatchObject({
        status: "succeeded",
        amount: 1200,
        provider_refund_id: expect.any(String),
      });
      expect(await retrieve(id, token)).toMatchObject({ body: { status: "cancelled", failure_code: "expired" } });
      expect(await atSandbox(provider_transaction_id)).toMatchObject({ status: "refunded", refunded_amount: 1200 });
      // The expiry was written 31 minutes "ahead", so rows are compared without their order.
      expect((await ledgerOf(id)).sort()).toEqual([
        ["cancelled", 1200],
        ["paid", 1200],
        ["qr_created", 1200],
        ["refunded", 1200],
      ]);
      expect((await eventTypes(id)).sort()).toEqual([
        "late_payment.received",
        "late_payment.refunded",
        "payment_intent.cancelled",
        "payment_intent.created",
        "payment_intent.requires_action",
      ]);
      expect(alerts).toHaveBeenCalledWith(
        expect.any(String),
        expect.objectContaining({ alert: "late_payment", payment_intent_id: id }),
      );
    },
  );

  // In-process only: reads the platform's log for the alert.
  inProcessOnly.each([
    ["amount", { amount: 1 }],
    ["currency", { currency: "USD" }],
  ])("dead-letters a signed paid notification with the wrong %s and moves nothing", async (field, overrides) => {
    const alerts = vi.spyOn(logger, "error");
    const { id, provider_transaction_id } = await confirmed("sandbox", 2222);
    const forged = flatNotification(provider_transaction_id, "paid", { amount: 2222, ...overrides });
    const response = await notify(forged);
    expect(response.status).toBe(200);
    expect((await intentRow(id)).status).toBe("requires_action");
    expect(await eventTypes(id)).toEqual(["payment_intent.created", "payment_intent.requires_action"]);
    expect(await ledgerOf(id)).toEqual([["qr_created", 2222]]);
    const letter = (await platform.payments.webhooks.deadLetters(service)).find(
      (row) => row.event_id === forged.event_id,
    );
    expect(letter?.last_error).toContain(field);
    expect(alerts).toHaveBeenCalledWith(
      expect.any(String),
      expect.objectContaining({ alert: "provider_notification_dead_lettered", event_id: forged.event_id }),
    );
  });

  it("refuses a notification two days old with 401 and moves nothing", async () => {
    const { id, provider_transaction_id } = await confirmed();
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const response = await notify(flatNotification(provider_transaction_id, "paid", { timestamp: twoDaysAgo }));
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: "unauthorized", details: { field: "timestamp" } });
    expect((await intentRow(id)).status).toBe("requires_action");
    expect((await notify(flatNotification(provider_transaction_id, "paid"))).status).toBe(200);
    expect((await intentRow(id)).status).toBe("succeeded");
  });
});

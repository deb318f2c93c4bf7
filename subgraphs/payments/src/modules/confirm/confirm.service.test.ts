import { type MerchantAccount, type RunningSandbox, startSandbox } from "@pos-cloud/sandbox-provider";
import {
  beginDeadRefund,
  intentBody,
  movableClock,
  openTestPayments,
  seedPartner,
} from "@pos-cloud/test-support/payments";
import { testAccount } from "@pos-cloud/test-support/sandbox-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";

let deps: PaymentsDeps;
const clock = movableClock();
let sandbox: RunningSandbox;
let account: MerchantAccount;

beforeAll(async () => {
  account = testAccount("polling");
  sandbox = await startSandbox({ webhookSecret: "s", accounts: [account], retryDelaysMs: [] });
  deps = await openTestPayments(clock);
  await deps.providers.configure(
    [
      { code: "sandbox-poll", adapter: "sandbox", options: { follow: "polling" } },
      // Nothing listens on port 1: the provider is down.
      {
        code: "down",
        adapter: "sandbox",
        options: { follow: "polling", baseUrl: "http://127.0.0.1:1", timeoutMs: 2000 },
      },
    ],
    { gatewayUrl: "http://gateway.invalid", sandbox: { baseUrl: sandbox.baseUrl, webhookSecret: "s" } },
  );
});
afterAll(async () => {
  await deps?.close();
  await sandbox?.close();
});

async function seeded(active = true) {
  const { merchant_id, api_key, api_secret } = account;
  const credentials = { merchant_id, api_key, api_secret };
  const seed = await seedPartner(deps, [
    { provider_code: "sandbox-poll", credentials, is_active: active },
    { provider_code: "down", credentials, is_active: true },
  ]);
  const created = await deps.paymentIntents.create(seed.caller, intentBody());
  return { ...seed, id: created.payment_intent.id, token: created.payment_token!.token };
}

const eventsOf = async (aggregate_id: string) =>
  (await deps.prisma.outboxEvent.findMany({ where: { aggregate_id }, orderBy: { id: "asc" } })).map(
    (event) => event.event_type,
  );
const ledgerOf = async (payment_intent_id: string) =>
  (await deps.prisma.ledgerTransaction.findMany({ where: { payment_intent_id }, orderBy: { id: "asc" } })).map(
    (row) => row.type,
  );

/** The intent followed the provider's payment: succeeded, with its events and ledger rows. */
async function expectPaid(id: string) {
  expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("succeeded");
  expect(await eventsOf(id)).toEqual([
    "payment_intent.created",
    "payment_intent.requires_action",
    "payment_intent.succeeded",
  ]);
  expect(await ledgerOf(id)).toEqual(["qr_created", "paid"]);
}

describe("confirm", () => {
  it("gets a QR, consumes the token and writes the intent, its event and ledger row together", async () => {
    const { id, token } = await seeded();
    const confirmed = await deps.confirmations.confirm(id, { payment_token: token, provider: "SANDBOX-POLL" });
    expect(confirmed).toMatchObject({ payment_id: id, provider: "sandbox-poll", qr_content: expect.any(String) });
    const intent = await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } });
    expect(intent).toMatchObject({
      status: "requires_action",
      provider_name: "sandbox-poll",
      payment_method_type: "qr_mpm",
      provider_transaction_id: expect.any(String),
    });
    expect(await eventsOf(id)).toEqual(["payment_intent.created", "payment_intent.requires_action"]);
    expect(await ledgerOf(id)).toEqual(["qr_created"]);
    await expect(
      deps.confirmations.confirm(id, { payment_token: token, provider: "sandbox-poll" }),
    ).rejects.toMatchObject({ code: "invalid_token" });
    // Used up for confirm, the token still follows the payment it started.
    expect(await deps.paymentIntents.retrieve(id, token)).toMatchObject({ id, status: "requires_action" });
  });

  it("leaves the intent and its token as they were when the provider is down", async () => {
    const { id, token } = await seeded();
    await expect(deps.confirmations.confirm(id, { payment_token: token, provider: "down" })).rejects.toMatchObject({
      code: "bad_gateway",
    });
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe(
      "requires_payment_method",
    );
    expect(await eventsOf(id)).toEqual(["payment_intent.created"]);
    expect(await ledgerOf(id)).toEqual([]);
    await deps.confirmations.confirm(id, { payment_token: token, provider: "sandbox-poll" });
  });

  it("refuses an inactive or unknown provider on field provider, and a method the intent does not allow", async () => {
    const { id, token } = await seeded(false);
    for (const provider of ["sandbox-poll", "unknown", undefined]) {
      await expect(deps.confirmations.confirm(id, { payment_token: token, provider })).rejects.toMatchObject({
        code: "invalid_request",
        details: { field: "provider" },
      });
    }
    await expect(
      deps.confirmations.confirm(id, { payment_token: token, provider: "down", payment_method_type: "qr_cpm" }),
    ).rejects.toMatchObject({ details: { field: "payment_method_type" } });
    expect(await eventsOf(id)).toEqual(["payment_intent.created"]);
  });

  it("does not apply to an external (card) intent, which starts in requires_action", async () => {
    const { caller } = await seeded();
    const card = await deps.paymentIntents.create(caller, intentBody({ payment_method_types: ["credit_card"] }));
    await expect(
      deps.confirmations.confirm(card.payment_intent.id, {
        payment_token: card.payment_token!.token,
        provider: "sandbox-poll",
      }),
    ).rejects.toMatchObject({ code: "invalid_state" });
  });

  it("is settled by one polling cycle once the customer paid", async () => {
    const { id, token } = await seeded();
    await deps.confirmations.confirm(id, { payment_token: token, provider: "sandbox-poll" });
    await deps.poller.pollOnce();
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("requires_action");
    const { provider_transaction_id } = await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } });
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${provider_transaction_id}/pay`, { method: "POST" });
    // A poll that found the payment pending put the intent back in the queue.
    await deps.poller.pollOnce();
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("requires_action");
    clock.advance(deps.providers.get("sandbox-poll").follow.pollIntervalMs);
    await deps.poller.pollOnce();
    await expectPaid(id);
  });

  it("leads to refunds whose dead request the sweep settles at the provider, without refunding twice", async () => {
    const { id, token, caller } = await seeded();
    await deps.confirmations.confirm(id, { payment_token: token, provider: "sandbox-poll" });
    const { provider_transaction_id } = await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } });
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${provider_transaction_id}/pay`, { method: "POST" });
    await deps.poller.pollOnce();
    // The request that began this refund died before the provider's answer was written, two minutes ago.
    const { refund } = await beginDeadRefund(
      deps,
      { payment_intent_id: id, client_partner_id: Number(caller.id), amount: 300, reason: null, viaProvider: true },
      new Date(Date.now() - 120_000),
    );
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("cancelling");
    await expect(deps.refunds.refund(caller, id, { amount: 100 })).rejects.toMatchObject({ code: "invalid_state" });

    expect(await deps.refunds.resumePending()).toBe(1);
    expect(await deps.refunds.resumePending()).toBe(0);
    expect(await deps.prisma.refund.findUniqueOrThrow({ where: { id: refund.id } })).toMatchObject({
      status: "succeeded",
      provider_refund_id: expect.any(String),
    });
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("succeeded");
    // The refund began "two minutes ago", so its cancelling event sorts first; what counts is that both are there.
    expect((await eventsOf(id)).sort()).toEqual([
      "payment_intent.cancelling",
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.succeeded",
      "payment_intent.succeeded",
    ]);
    expect(await ledgerOf(id)).toEqual(["qr_created", "paid", "refunded"]);
    const { merchant_id, api_key, api_secret } = account;
    const atProvider = await deps.providers
      .get("sandbox-poll")
      .getPaymentStatus(provider_transaction_id!, { merchant_id, api_key, api_secret });
    expect(atProvider.refunded_amount).toBe(300);
  });
});

describe("cancel of a confirmed QR", () => {
  const atProvider = (transaction: string) =>
    deps.providers.get("sandbox-poll").getPaymentStatus(transaction, {
      merchant_id: account.merchant_id,
      api_key: account.api_key,
      api_secret: account.api_secret,
    });
  const payAtSandbox = (transaction: string) =>
    fetch(`${sandbox.baseUrl}/sandbox/transactions/${transaction}/pay`, { method: "POST" });

  async function confirmedQr() {
    const seed = await seeded();
    await deps.confirmations.confirm(seed.id, { payment_token: seed.token, provider: "sandbox-poll" });
    const { provider_transaction_id } = await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id: seed.id } });
    return { ...seed, transaction: provider_transaction_id! };
  }

  it("cancels the QR at the provider first, so it can no longer be paid", async () => {
    const { id, token, transaction } = await confirmedQr();
    expect(await deps.paymentIntents.cancel(id, token)).toMatchObject({ status: "cancelled" });
    expect((await atProvider(transaction)).status).toBe("cancelled");
    expect((await payAtSandbox(transaction)).status).toBe(409);
    expect(await ledgerOf(id)).toEqual(["qr_created", "cancelled"]);
  });

  it("refuses to cancel a paid QR with 409, and the intent follows the payment", async () => {
    const { id, token, transaction } = await confirmedQr();
    await payAtSandbox(transaction);
    await expect(deps.paymentIntents.cancel(id, token)).rejects.toMatchObject({
      code: "invalid_state",
      details: { status: "succeeded", provider_status: "succeeded" },
    });
    await expectPaid(id);
  });

  it("refuses with 502 and changes nothing while the provider cannot be asked", async () => {
    const { id, token } = await confirmedQr();
    // The QR's provider is down (its configuration points nowhere).
    await deps.prisma.paymentIntent.update({ where: { id }, data: { provider_name: "down" } });
    await expect(deps.paymentIntents.cancel(id, token)).rejects.toMatchObject({ code: "bad_gateway" });
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("requires_action");
    expect(await eventsOf(id)).toEqual(["payment_intent.created", "payment_intent.requires_action"]);
  });
});

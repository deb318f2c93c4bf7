import { createHmac, randomBytes } from "node:crypto";
import { AppError } from "@pos-cloud/common";
import { type MerchantAccount, type RunningSandbox, startSandbox } from "@pos-cloud/sandbox-provider";
import { intentBody, movableClock, openIsolatedPayments, seedPartner } from "@pos-cloud/test-support/payments";
import { testAccount } from "@pos-cloud/test-support/sandbox-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAIM_LEASE_MS } from "../../claims";
import type { PaymentsDeps } from "../../index";
import type { PaymentProvider } from "../providers";
import { confirmRepository } from "./confirm.repository";

const secret = "confirm-recovery-test-secret";
const clock = movableClock();
let deps: PaymentsDeps;
let sandbox: RunningSandbox;
let account: MerchantAccount;
let sandboxApi: PaymentProvider;
/** The next confirm's request dies once the provider made its QR (the QRs it made are kept here). */
let dieAfterQr = false;
const madeBeforeDying: string[] = [];

beforeAll(async () => {
  account = testAccount("webhook");
  sandbox = await startSandbox({ webhookSecret: secret, accounts: [account], retryDelaysMs: [] });
  deps = await openIsolatedPayments(clock);
  // Notifications go nowhere (nothing listens on port 1): the test plays them itself.
  await deps.providers.configure([{ code: "sandbox", adapter: "sandbox", options: { follow: "webhook" } }], {
    gatewayUrl: "http://127.0.0.1:1",
    sandbox: { baseUrl: sandbox.baseUrl, webhookSecret: secret },
  });
  sandboxApi = deps.providers.get("sandbox");
  const dying: PaymentProvider = {
    ...sandboxApi,
    async createQr(request, credentials) {
      const qr = await sandboxApi.createQr(request, credentials);
      if (!dieAfterQr) return qr;
      dieAfterQr = false;
      madeBeforeDying.push(qr.provider_transaction_id);
      throw new AppError("bad_gateway", "the sandbox provider is unavailable: no answer");
    },
  };
  deps.providers.attach({ providers: [dying], webhookSecrets: { sandbox: secret } });
});
afterAll(async () => {
  await deps?.close();
  await sandbox?.close();
});

const credentials = () => ({
  merchant_id: account.merchant_id,
  api_key: account.api_key,
  api_secret: account.api_secret,
});

/** An intent whose confirm died after the sandbox made its QR: the attempt is pending, the intent unchanged. */
async function diedAfterQr() {
  const { caller } = await seedPartner(deps, [
    { provider_code: "sandbox", credentials: credentials(), is_active: true },
  ]);
  const { payment_intent, payment_token } = await deps.paymentIntents.create(caller, intentBody());
  const id = payment_intent.id;
  const token = payment_token!.token;
  dieAfterQr = true;
  await expect(deps.confirmations.confirm(id, { payment_token: token, provider: "sandbox" })).rejects.toMatchObject({
    code: "bad_gateway",
  });
  const attempt = await deps.prisma.confirmAttempt.findFirstOrThrow({ where: { payment_intent_id: id } });
  expect(attempt).toMatchObject({ status: "pending", provider_transaction_id: null });
  expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("requires_payment_method");
  return { id, token, attempt, transaction: madeBeforeDying.at(-1)! };
}

function notification(transaction_id: string, status: string) {
  const raw = JSON.stringify({
    event_id: `evt_${randomBytes(8).toString("hex")}`,
    event_type: `payment.${status}`,
    transaction_id,
    status,
    amount: 1200,
    currency: "JPY",
    timestamp: clock().toISOString(),
  });
  const signature = createHmac("sha256", secret).update(raw).digest("hex");
  return deps.webhooks.receive("sandbox", Buffer.from(raw).toString("base64"), { "x-sandbox-signature": signature });
}

const attemptRow = (id: string) => deps.prisma.confirmAttempt.findUniqueOrThrow({ where: { id } });

describe("recovery of a confirm whose request died", () => {
  it("cancels the QR the provider made, once for two passes at once; its webhook finds the intent; a retry works", async () => {
    const { id, token, attempt, transaction } = await diedAfterQr();
    // Its own request may still be under way: the attempt is not taken before the lease ends.
    expect(await deps.confirmRecovery.recoverAttempts()).toBe(0);
    clock.advance(CLAIM_LEASE_MS);
    const settled = await Promise.all([deps.confirmRecovery.recoverAttempts(), deps.confirmRecovery.recoverAttempts()]);
    expect(settled[0] + settled[1]).toBe(1);
    // The same idempotency key gave back the QR made the first time, which is cancelled.
    expect(await attemptRow(attempt.id)).toMatchObject({ status: "cancelled", provider_transaction_id: transaction });
    expect((await sandboxApi.getPaymentStatus(transaction, credentials())).status).toBe("cancelled");
    expect(await notification(transaction, "cancelled")).toMatchObject({ received: true, result: "stale" });
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe(
      "requires_payment_method",
    );
    const retried = await deps.confirmations.confirm(id, { payment_token: token, provider: "sandbox" });
    expect(retried.qr_content).not.toContain(transaction);
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("requires_action");
  });

  it("gives a QR the customer paid anyway to its intent, whose webhook then settles it", async () => {
    const { id, attempt, transaction } = await diedAfterQr();
    await fetch(`${sandbox.baseUrl}/sandbox/transactions/${transaction}/pay`, { method: "POST" });
    clock.advance(CLAIM_LEASE_MS);
    expect(await deps.confirmRecovery.recoverAttempts()).toBe(1);
    expect(await attemptRow(attempt.id)).toMatchObject({ status: "succeeded", provider_transaction_id: transaction });
    expect(await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: "requires_action",
      provider_transaction_id: transaction,
    });
    expect(await notification(transaction, "paid")).toMatchObject({ result: "applied" });
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("succeeded");
  });

  it("leaves the attempt of a pass stopped mid-claim to another pass once the claim's lease ends", async () => {
    const { attempt } = await diedAfterQr();
    clock.advance(CLAIM_LEASE_MS);
    // A pass claims the attempt and dies before asking the provider.
    expect(await confirmRepository(deps.prisma).claimUnfinished(clock(), 50)).toMatchObject([{ id: attempt.id }]);
    expect(await deps.confirmRecovery.recoverAttempts()).toBe(0);
    clock.advance(CLAIM_LEASE_MS);
    expect(await deps.confirmRecovery.recoverAttempts()).toBe(1);
    expect((await attemptRow(attempt.id)).status).toBe("cancelled");
  });
});

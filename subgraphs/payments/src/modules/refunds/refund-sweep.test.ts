import { AppError } from "@pos-cloud/common";
import {
  intentBody,
  movableClock,
  openIsolatedPayments,
  scriptedProvider,
  seedPartner,
} from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CLAIM_LEASE_MS } from "../../claims";
import type { PaymentsDeps } from "../../index";
import { refundRepository } from "./refund.repository";
import { beginRefund } from "./refund-recording.service";

const clock = movableClock();
const scripted = scriptedProvider("scripted-refund");
let deps: PaymentsDeps;

beforeAll(async () => {
  deps = await openIsolatedPayments(clock);
  deps.providers.attach({ providers: [scripted.provider], webhookSecrets: {} });
});
afterAll(async () => {
  await deps?.close();
});

/** A paid QR intent of the scripted provider, and its partner. */
async function paidIntent() {
  const credentials = { merchant_id: "m", api_key: "k", api_secret: "s" };
  const { caller } = await seedPartner(deps, [{ provider_code: "scripted-refund", credentials, is_active: true }]);
  const { payment_intent, payment_token } = await deps.paymentIntents.create(caller, intentBody());
  const id = payment_intent.id;
  await deps.confirmations.confirm(id, { payment_token: payment_token!.token, provider: "scripted-refund" });
  const { provider_transaction_id } = await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } });
  scripted.settle(provider_transaction_id!, "succeeded");
  while ((await deps.poller.pollOnce()) > 0);
  return { caller, id };
}

/** A paid QR intent with a provider refund whose request died before the provider was asked. */
async function deadRefund() {
  const { caller, id } = await paidIntent();
  const { refund } = await beginRefund(
    refundRepository(deps.prisma),
    { payment_intent_id: id, client_partner_id: Number(caller.id), amount: 300, reason: null, viaProvider: true },
    clock(),
    async () => {},
  );
  return refund;
}

const statusOf = async (id: string) => (await deps.prisma.refund.findUniqueOrThrow({ where: { id } })).status;

describe("the refund sweep", () => {
  it("leaves a refund to its own request first, then two sweeps at once ask the provider once", async () => {
    const refund = await deadRefund();
    expect(await deps.refunds.resumePending()).toBe(0);
    clock.advance(CLAIM_LEASE_MS);
    scripted.refundKeys.length = 0;
    const settled = await Promise.all([deps.refunds.resumePending(), deps.refunds.resumePending()]);
    expect(settled[0] + settled[1]).toBe(1);
    expect(scripted.refundKeys).toEqual([refund.id]);
    expect(await statusOf(refund.id)).toBe("succeeded");
  });

  it("leaves the refund of a sweep stopped mid-claim to another sweep once the claim's lease ends", async () => {
    const refund = await deadRefund();
    clock.advance(CLAIM_LEASE_MS);
    // A sweep claims the refund and dies before asking the provider.
    expect(await refundRepository(deps.prisma).claimPending(clock(), 50)).toMatchObject([{ id: refund.id }]);
    expect(await deps.refunds.resumePending()).toBe(0);
    expect(await statusOf(refund.id)).toBe("pending");
    clock.advance(CLAIM_LEASE_MS);
    expect(await deps.refunds.resumePending()).toBe(1);
    expect(await statusOf(refund.id)).toBe("succeeded");
  });
});

describe("a partner's refund the provider fails", () => {
  it("is settled failed with the provider's refusal or bad_gateway, the intent back to succeeded, its key free", async () => {
    const { caller, id } = await paidIntent();
    const request = { key: `refund-${id}`, request_hash: "h" };
    const failing = vi
      .spyOn(scripted.provider, "refundPayment")
      .mockRejectedValueOnce(new AppError("invalid_state", "the payment moved on"))
      .mockRejectedValueOnce(new Error("socket hang up"));
    await expect(deps.refunds.refund(caller, id, { amount: 300 }, request)).rejects.toMatchObject({
      code: "invalid_state",
    });
    await expect(deps.refunds.refund(caller, id, { amount: 300 }, request)).rejects.toMatchObject({
      code: "bad_gateway",
      message: "the provider refund failed",
    });
    failing.mockRestore();
    const failed = await deps.prisma.refund.findMany({ where: { payment_intent_id: id } });
    expect(failed.map((refund) => [refund.status, refund.failure_code]).sort()).toEqual([
      ["failed", "bad_gateway"],
      ["failed", "invalid_state"],
    ]);
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("succeeded");
    const { refund } = await deps.refunds.refund(caller, id, { amount: 300 }, request);
    expect(refund).toMatchObject({ status: "succeeded", provider_refund_id: `rf_${refund.id}` });
  });
});

import { randomUUID } from "node:crypto";
import { AppError } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type CreatedQr,
  followsByPolling,
  followsByWebhook,
  type PaymentProvider,
  type ProviderCredentials,
} from "../../subgraphs/payments/src/modules/providers";

/** How late the provider answers in the timeout cases: the adapter's timeout must be well under it (1 s). */
const LATE_ANSWER_MS = 3_000;

/** A notification as it reached the gateway: its bytes and headers. */
export interface ArrivedNotification {
  raw: Buffer;
  headers: Record<string, unknown>;
}

/** What an adapter's test gives the contract: its provider, configured, against something that speaks its protocol. */
export interface ContractHarness {
  /** Built from a `{code, adapter, options}` setting, as the platform builds it. */
  provider: PaymentProvider;
  credentials: ProviderCredentials;
  /** The customer pays the QR in their app. */
  pay(qr: CreatedQr): Promise<void>;
  /** An amount the provider declines when it is paid. */
  declinedAmount: number;
  /** The provider's clock moves past a QR made to live `seconds`. */
  outlive(seconds: number): void;
  /** The provider's next `times` calls answer `status` (5xx) and/or only after `delay_ms` (a timeout). */
  fail(fault: { status?: number; delay_ms?: number; times?: number }): Promise<void>;
  /** The provider's record changes behind the gateway's back, unnotified: paid after all, and/or a refund of its own. */
  disagree(qr: CreatedQr, change: { status?: "paid"; refund_amount?: number }): Promise<void>;
  /** When the provider notifies: the secret it signs with, and the next notification about a payment. */
  webhook?: { secret: string; arrived(providerTransactionId: string): Promise<ArrivedNotification> };
  close(): Promise<void>;
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/**
 * The suite every payment provider adapter runs (docs: CONTRIBUTING.md, "A new payment provider"): what the gateway
 * relies on from any provider, whatever its protocol. `start` gives the adapter against its provider (or the sandbox
 * speaking that provider's protocol); the adapter's timeout must be at most a second, well under `LATE_ANSWER_MS`.
 */
export function providerContract(name: string, start: () => Promise<ContractHarness>) {
  describe(`provider contract: ${name}`, () => {
    let h: ContractHarness;
    beforeAll(async () => {
      h = await start();
    });
    afterAll(async () => {
      await h?.close();
    });

    const request = (amount: number, patch: { expires_in_seconds?: number } = {}) => ({
      amount,
      currency: "JPY",
      reference: `pi_${randomUUID().replaceAll("-", "")}`,
      mode: "mpm" as const,
      idempotency_key: `att_${randomUUID().replaceAll("-", "")}`,
      ...patch,
    });
    const create = (amount: number, patch?: { expires_in_seconds?: number }) =>
      h.provider.createQr(request(amount, patch), h.credentials);
    const status = (qr: CreatedQr) => h.provider.getPaymentStatus(qr.provider_transaction_id, h.credentials);

    it("creates a QR, then reads it as pending", async () => {
      const qr = await create(2500);
      expect(qr).toMatchObject({ status: "pending" });
      expect(qr.qr_content).not.toBe("");
      expect(qr.expires_at.getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect(await status(qr)).toMatchObject({
        provider_transaction_id: qr.provider_transaction_id,
        status: "pending",
        amount: 2500,
        currency: "JPY",
        refunded_amount: 0,
        failure_code: null,
      });
    });

    it("sees a paid QR succeed when polled", async () => {
      expect(followsByPolling(h.provider.follow) || followsByWebhook(h.provider.follow)).toBe(true);
      const qr = await create(1800);
      await h.pay(qr);
      expect(await status(qr)).toMatchObject({ status: "succeeded", amount: 1800, refunded_amount: 0 });
    });

    it("sees a paid QR succeed by a notification that verifies and parses", async (context) => {
      if (!followsByWebhook(h.provider.follow)) return context.skip();
      const { secret, arrived } = h.webhook!;
      const qr = await create(1900);
      await h.pay(qr);
      const notification = await arrived(qr.provider_transaction_id);
      expect(h.provider.notifications!.verify(notification.raw, notification.headers, secret)).toBe(true);
      expect(h.provider.notifications!.parse(notification.raw)).toMatchObject({
        provider: h.provider.name,
        provider_transaction_id: qr.provider_transaction_id,
        status: "succeeded",
        amount: 1900,
        currency: "JPY",
      });
    });

    it("has a duplicate notification keep its event id, and refuses a bad signature or an altered amount", async (context) => {
      if (!followsByWebhook(h.provider.follow)) return context.skip();
      const { secret, arrived } = h.webhook!;
      const notifications = h.provider.notifications!;
      const qr = await create(2100);
      await h.pay(qr);
      const { raw, headers } = await arrived(qr.provider_transaction_id);
      const first = notifications.parse(raw);
      const again = notifications.parse(Buffer.from(raw));
      expect(first).not.toBe("not_a_payment");
      expect(again).toEqual(first);
      expect(notifications.verify(raw, headers, `${secret}-not`)).toBe(false);
      const altered = Buffer.from(raw.toString("utf8").replace("2100", "2000"));
      expect(altered.equals(raw)).toBe(false);
      expect(notifications.verify(altered, headers, secret)).toBe(false);
    });

    it("reports a declined payment as failed with the provider's reason", async () => {
      const qr = await create(h.declinedAmount);
      await h.pay(qr);
      const payment = await status(qr);
      expect(payment).toMatchObject({ status: "failed" });
      expect(payment.failure_code).toBeTruthy();
      expect(payment.failure_message).toBeTruthy();
    });

    it("reports a QR that outlived its life as failed with failure_code expired", async () => {
      const qr = await create(300, { expires_in_seconds: 30 });
      h.outlive(30);
      expect(await status(qr)).toMatchObject({ status: "failed", failure_code: "expired" });
    });

    it("cancels a QR before it is paid; refuses to cancel a paid one, which stays paid", async () => {
      const pending = await create(400);
      expect((await h.provider.cancelPayment(pending.provider_transaction_id, h.credentials)).status).toBe("cancelled");
      expect((await status(pending)).status).toBe("cancelled");
      const paid = await create(400);
      await h.pay(paid);
      const refused = await rejection(h.provider.cancelPayment(paid.provider_transaction_id, h.credentials));
      expect(refused.code).toBe("invalid_state");
      expect((await status(paid)).status).toBe("succeeded");
    });

    it("refunds a part, then the rest; a repeated key refunds once; more than is left is refused", async () => {
      const qr = await create(1000);
      await h.pay(qr);
      const refund = (amount: number, key: string) =>
        h.provider.refundPayment(
          { provider_transaction_id: qr.provider_transaction_id, amount, idempotency_key: key },
          h.credentials,
        );
      const key = `rf_${randomUUID().slice(0, 8)}-1`;
      const first = await refund(400, key);
      expect(first).toMatchObject({ amount: 400, payment: { status: "succeeded", refunded_amount: 400 } });
      const again = await refund(400, key);
      expect(again.provider_refund_id).toBe(first.provider_refund_id);
      expect(again.payment.refunded_amount).toBe(400);
      const tooMuch = await rejection(refund(601, `rf_${randomUUID().slice(0, 8)}-2`));
      expect(tooMuch).toMatchObject({ code: "invalid_request", details: { field: "amount" } });
      const rest = await refund(600, `rf_${randomUUID().slice(0, 8)}-3`);
      expect(rest.payment).toMatchObject({ status: "refunded", refunded_amount: 1000 });
    });

    it("lists a window's payments for reconciliation: amounts, statuses, refunds, and what it changed untold", async () => {
      const refunded = await create(1200);
      await h.pay(refunded);
      await h.provider.refundPayment(
        {
          provider_transaction_id: refunded.provider_transaction_id,
          amount: 200,
          idempotency_key: `rf_${randomUUID()}`,
        },
        h.credentials,
      );
      const open = await create(1300);
      const paidUntold = await create(1400);
      await h.disagree(paidUntold, { status: "paid" });
      const refundedUntold = await create(1500);
      await h.pay(refundedUntold);
      await h.disagree(refundedUntold, { refund_amount: 100 });
      const mine = [refunded, open, paidUntold, refundedUntold].map((qr) => qr.provider_transaction_id);
      const hour = 3_600_000;
      const around = { from: new Date(Date.now() - hour), to: new Date(Date.now() + hour) };
      const listed = await h.provider.listTransactions(
        { ...around, known: [...mine, "pi_unknown_here"] },
        h.credentials,
      );
      const byId = new Map(listed.map((payment) => [payment.provider_transaction_id, payment]));
      expect(mine.map((id) => byId.get(id))).toMatchObject([
        { status: "succeeded", amount: 1200, refunded_amount: 200 },
        { status: "pending", amount: 1300, refunded_amount: 0 },
        { status: "succeeded", amount: 1400, refunded_amount: 0 },
        { status: "succeeded", amount: 1500, refunded_amount: 100 },
      ]);
      expect(byId.has("pi_unknown_here")).toBe(false);
      // A known payment the provider places outside the window is read all the same.
      const before = { from: new Date(Date.now() - 3 * hour), to: new Date(Date.now() - 2 * hour) };
      const elsewhere = await h.provider.listTransactions({ ...before, known: [mine[0]!] }, h.credentials);
      expect(elsewhere).toMatchObject([{ provider_transaction_id: mine[0], refunded_amount: 200 }]);
    });

    describe("a provider that fails or answers too late: bad_gateway, and a retry with the same key is safe", () => {
      const faults = [
        ["a 500", { status: 500 }],
        ["a 503", { status: 503 }],
        ["a timeout", { delay_ms: LATE_ANSWER_MS }],
      ] as const;

      it.each(faults)("on create QR, %s", async (_, fault) => {
        const qrRequest = request(700);
        await h.fail(fault);
        expect((await rejection(h.provider.createQr(qrRequest, h.credentials))).code).toBe("bad_gateway");
        const retried = await vi.waitFor(() => h.provider.createQr(qrRequest, h.credentials), { timeout: 5_000 });
        const repeated = await h.provider.createQr(qrRequest, h.credentials);
        expect(repeated.provider_transaction_id).toBe(retried.provider_transaction_id);
        expect((await status(retried)).amount).toBe(700);
      });

      it.each(faults)("on get payment status, %s", async (_, fault) => {
        const qr = await create(700);
        await h.fail(fault);
        expect((await rejection(status(qr))).code).toBe("bad_gateway");
        expect((await status(qr)).status).toBe("pending");
      });

      it.each(faults)("on the reconciliation's list, %s", async (_, fault) => {
        const qr = await create(700);
        const range = { from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 60_000) };
        const known = [qr.provider_transaction_id];
        await h.fail(fault);
        expect((await rejection(h.provider.listTransactions({ ...range, known }, h.credentials))).code).toBe(
          "bad_gateway",
        );
        expect(await h.provider.listTransactions({ ...range, known }, h.credentials)).toContainEqual(
          expect.objectContaining({ provider_transaction_id: qr.provider_transaction_id, status: "pending" }),
        );
      });

      it.each(faults)("on cancel, %s", async (_, fault) => {
        const qr = await create(700);
        await h.fail(fault);
        expect((await rejection(h.provider.cancelPayment(qr.provider_transaction_id, h.credentials))).code).toBe(
          "bad_gateway",
        );
        expect((await h.provider.cancelPayment(qr.provider_transaction_id, h.credentials)).status).toBe("cancelled");
      });

      it.each(faults)("on refund, %s", async (_, fault) => {
        const qr = await create(700);
        await h.pay(qr);
        const refund = {
          provider_transaction_id: qr.provider_transaction_id,
          amount: 300,
          idempotency_key: `rf_${randomUUID().slice(0, 8)}`,
        };
        await h.fail(fault);
        expect((await rejection(h.provider.refundPayment(refund, h.credentials))).code).toBe("bad_gateway");
        const retried = await vi.waitFor(() => h.provider.refundPayment(refund, h.credentials), { timeout: 5_000 });
        expect(retried.payment.refunded_amount).toBe(300);
        expect((await status(qr)).refunded_amount).toBe(300);
      });
    });
  });
}

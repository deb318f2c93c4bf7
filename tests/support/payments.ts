import { randomBytes, randomInt } from "node:crypto";
import { AppError, type Caller } from "@pos-cloud/common";
import { type Clock, openPayments, type PaymentsConfig, type PaymentsDeps } from "@pos-cloud/payments";
import type { FollowMode, PaymentProvider, ProviderPayment } from "../../subgraphs/payments/src/modules/providers";
import type { RefundRequest } from "../../subgraphs/payments/src/modules/refunds";
import { isolatedStorage } from "./databases";
import { testStorage } from "./environment";

/** A clock tests move by hand: `clock.advance(ms)`. */
export function movableClock() {
  let offset = 0;
  const clock: Clock & { advance(ms: number): void } = Object.assign(() => new Date(Date.now() + offset), {
    advance: (ms: number) => {
      offset += ms;
    },
  });
  return clock;
}

/** The payments subgraph on PGlite (or the cluster suite's PostgreSQL), with a clock the test controls. */
export async function openTestPayments(clock: Clock = movableClock(), config: Partial<PaymentsConfig> = {}) {
  return openPayments({ ...testStorage("payments"), clock, ...config });
}

/**
 * The same on storage no other test shares, for tests of workers that take every due row: other tests' rows (and
 * other runs' on the cluster suite's PostgreSQL) are not theirs to count.
 */
export async function openIsolatedPayments(clock: Clock): Promise<PaymentsDeps> {
  const storage = await isolatedStorage(["payments"]);
  const deps = await openPayments({ url: storage.urls.payments, masterKey: randomBytes(32), clock });
  return {
    ...deps,
    async close() {
      await deps.close();
      await storage.drop();
    },
  };
}

export interface SeedProviderConfig {
  provider_code: string;
  credentials: Record<string, unknown>;
  is_active: boolean;
}

/** A system operator (L0), as the edge passes one on. */
export const systemOperator: Caller = {
  type: "user",
  id: "00000000-0000-4000-8000-000000000000",
  role: "SYSTEM_OP",
  scopes: [],
};

/**
 * Merchant and store rows as the platform's sync would have created them (unleased; kept when there already), and an operator's grant of the
 * whole merchant to the partner.
 */
export async function grantMerchant(
  deps: Pick<PaymentsDeps, "prisma" | "grants">,
  client_partner_id: number,
  merchant: { merchant_id: number; stores: { store_id: number; store_code?: string }[] },
) {
  const { merchant_id } = merchant;
  await deps.prisma.merchant.upsert({
    where: { id: merchant_id },
    create: { id: merchant_id, client_partner_id },
    update: {},
  });
  for (const { store_id, store_code } of merchant.stores) {
    const fields = { merchant_id, store_code };
    await deps.prisma.store.upsert({ where: { id: store_id }, create: { id: store_id, ...fields }, update: fields });
  }
  return deps.grants.grant(systemOperator, client_partner_id, { merchant_id: merchant.merchant_id });
}

/**
 * A client partner with one API key and one merchant with one store, all with ids unique to this test. The merchant
 * and store rows stand for what the platform's sync would have created; an operator grants the merchant, and the
 * partner syncs its store's provider configurations itself, as a granted partner may.
 */
export async function seedPartner(deps: PaymentsDeps, provider_configs: SeedProviderConfig[] = []) {
  const partner = await deps.partners.createPartner(`partner ${randomBytes(4).toString("hex")}`);
  const key = await deps.partners.issueApiKey(partner.id);
  // As the edge makes it: the partner, and the key whose secret signed.
  const caller: Caller = { type: "partner", id: String(partner.id), scopes: [], apiKeyId: key.id };
  const merchantId = randomInt(1, 2_000_000_000);
  const store = { store_id: randomInt(1, 2_000_000_000), store_code: `S${randomBytes(3).toString("hex")}` };
  await grantMerchant(deps, partner.id, { merchant_id: merchantId, stores: [store] });
  if (provider_configs.length > 0) {
    await deps.merchantSync.syncMerchants(caller, {
      merchants: [{ merchant_id: merchantId, stores: [{ ...store, provider_configs }] }],
    });
  }
  return { partner, key, caller, merchantId, store };
}

/** A refund whose request began at `at` and died before the provider's answer was written: what the sweep resumes. */
export const beginDeadRefund = (deps: PaymentsDeps, request: RefundRequest, at: Date) =>
  deps.refunds.steps.recordRefund.invoke({ request, at, within: async () => {} });

export const intentBody = (overrides: Record<string, unknown> = {}) => ({
  amount: 1200,
  currency: "JPY",
  payment_method_types: ["qr_mpm"],
  merchant_ref_id: `ref-${randomBytes(6).toString("hex")}`,
  ...overrides,
});

/**
 * A provider the test scripts: every QR is pending until `settle`, and the calls are recorded, so a test can count
 * how often a worker asked. `hold` makes status calls wait until released, as a worker that hangs or died would.
 */
export function scriptedProvider(name: string, mode: FollowMode = "polling") {
  const payments = new Map<string, ProviderPayment>();
  const statusCalls: string[] = [];
  const refundKeys: string[] = [];
  let held: Promise<void> | undefined;
  const payment = (id: string) => {
    const found = payments.get(id);
    if (!found) throw new AppError("not_found", `no transaction ${id}`);
    return found;
  };
  const provider: PaymentProvider = {
    name,
    follow: { mode, pollIntervalMs: 5_000 },
    notificationMaxAgeSeconds: 600,
    async createQr(request) {
      const id = `txn_${randomBytes(8).toString("hex")}`;
      const expires_at = new Date(Date.now() + 600_000);
      const { amount, currency } = request;
      payments.set(id, {
        provider_transaction_id: id,
        status: "pending",
        amount,
        currency,
        refunded_amount: 0,
        expires_at,
        failure_code: null,
        failure_message: null,
      });
      return { provider_transaction_id: id, qr_content: `scripted:${id}`, expires_at, status: "pending" };
    },
    async getPaymentStatus(id) {
      statusCalls.push(id);
      await held;
      return payment(id);
    },
    async cancelPayment(id) {
      if (payment(id).status !== "pending") throw new AppError("invalid_state", "the payment moved on");
      return Object.assign(payment(id), { status: "cancelled" as const });
    },
    async refundPayment(request) {
      refundKeys.push(request.idempotency_key);
      const paid = payment(request.provider_transaction_id);
      paid.refunded_amount += request.amount;
      return { provider_refund_id: `rf_${request.idempotency_key}`, amount: request.amount, payment: paid };
    },
    listTransactions: async ({ known }) => known.flatMap((id) => payments.get(id) ?? []),
  };
  return {
    provider,
    statusCalls,
    refundKeys,
    settle: (id: string, status: ProviderPayment["status"]) => Object.assign(payment(id), { status }),
    /** Status calls wait from now on until the returned function is called. */
    hold() {
      let release = () => {};
      held = new Promise((resolve) => {
        release = () => {
          held = undefined;
          resolve();
        };
      });
      return release;
    },
  };
}

import { randomBytes, randomInt } from "node:crypto";
import { AppError, type Caller } from "@pos-cloud/common";
import { isolatedStorage } from "../../../tests/support/databases";
import { testStorage } from "../../../tests/support/environment";
import { type Clock, openPayments, type PaymentsConfig, type PaymentsDeps } from "./index";
import type { OutcomeDelivery, PaymentProvider, ProviderPayment } from "./modules/providers/provider";

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

/** A client partner with one API key and one merchant with one store, all with ids unique to this test. */
export async function seedPartner(deps: PaymentsDeps, provider_configs: SeedProviderConfig[] = []) {
  const partner = await deps.partners.createPartner(`partner ${randomBytes(4).toString("hex")}`);
  const key = await deps.partners.issueApiKey(partner.id);
  const caller: Caller = { type: "partner", id: String(partner.id), scopes: [] };
  const merchantId = randomInt(1, 2_000_000_000);
  const store = { store_id: randomInt(1, 2_000_000_000), store_code: `S${randomBytes(3).toString("hex")}` };
  // Only the platform's sync partner creates ids by syncing; a test's partner is granted them, as by an operator.
  await deps.merchantSync.grant(partner.id, {
    merchants: [{ merchant_id: merchantId, stores: [{ ...store, provider_configs }] }],
  });
  return { partner, key, caller, merchantId, store };
}

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
export function scriptedProvider(name: string, delivery: OutcomeDelivery = "polling") {
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
    delivery,
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

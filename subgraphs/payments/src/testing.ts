import { randomBytes, randomInt } from "node:crypto";
import type { Caller } from "@pos-cloud/common";
import { testStorage } from "../../../tests/support/environment";
import { type Clock, openPayments, type PaymentsDeps } from "./index";

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
export async function openTestPayments(clock: Clock = movableClock()) {
  return openPayments({ ...testStorage("payments"), masterKey: randomBytes(32), clock });
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

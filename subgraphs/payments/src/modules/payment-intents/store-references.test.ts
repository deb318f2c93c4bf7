import { hostSubgraph } from "@pos-cloud/common";
import { openTestPayments } from "@pos-cloud/test-support/payments";
import { describeStoreReferences } from "@pos-cloud/test-support/store-references";
import { payments } from "../../index";

describeStoreReferences("payment_intents_count", async (internalToken) => {
  const deps = await openTestPayments();
  return {
    host: hostSubgraph(payments, deps, internalToken),
    statements: { runner: deps.db, method: "prepared" },
    // Store k has k intents.
    seed: (merchantId, stores) =>
      deps.db.query(
        `INSERT INTO payment_intents (id, merchant_id, store_id, client_partner_id, merchant_ref_id, amount, currency,
           payment_method_types, processing_mode, status, updated_at, expires_at)
         SELECT 'pi_' || gen_random_uuid(), $1, s.id, 1, gen_random_uuid()::text, 1200, 'JPY', '{qr_mpm}',
           'pgw_processed', 'requires_payment_method', now(), now() + interval '30 minutes'
         FROM unnest($2::int[]) WITH ORDINALITY AS s(id, k), generate_series(1, s.k - 1) AS n`,
        [merchantId, stores],
      ),
    close: () => deps.close(),
  };
});

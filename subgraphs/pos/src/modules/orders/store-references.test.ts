import { hostSubgraph } from "@pos-cloud/common";
import { testStorage } from "@pos-cloud/test-support/environment";
import { describeStoreReferences } from "@pos-cloud/test-support/store-references";
import { openPos, pos } from "../../index";

describeStoreReferences("open_orders_count", async (internalToken) => {
  // Store references never ask the portal: it answers nothing here.
  const deps = await openPos({
    ...testStorage("pos"),
    portal: async () => ({ errors: [{ message: "no portal in this test" }] }),
  });
  return {
    host: hostSubgraph(pos, deps, internalToken),
    statements: { runner: deps.db, method: "prepared" },
    // Store k has k open orders, and one completed order that never counts.
    seed: (merchantId, stores) =>
      deps.db.query(
        `INSERT INTO orders (id, merchant_id, store_id, order_number, order_type, status)
         SELECT gen_random_uuid(), $1, s.id, 'O' || n, 'dine_in', CASE WHEN n = 0 THEN 'completed' ELSE 'open' END
         FROM unnest($2::int[]) WITH ORDINALITY AS s(id, k), generate_series(0, s.k - 1) AS n`,
        [merchantId, stores],
      ),
    close: () => deps.close(),
  };
});

import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ApolloServer } from "@apollo/server";
import { type Caller, hostSubgraph, repositoryRoot, type SubgraphHost } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it, type Mock, vi } from "vitest";
import { type GatewayContext, startGraphQL } from "../../apps/edge/src/gateway";
import { graphQLLimits } from "../../apps/edge/src/graphql-limits";
import { payments } from "../../subgraphs/payments/src/index";
import { portal } from "../../subgraphs/portal/src/index";
import { portalWithClock } from "../support/identity";
import { openTestPayments } from "../support/payments";
import { seedBranch } from "../support/portal-seed";

// `PaymentIntent.store` (issue 12): payments answers the intent's store by key, the gateway asks the portal for it,
// and the portal resolves every store of the list in one statement, checking the caller as its store read does.
// Intents answer client partners only (an HMAC-signed `/v1` request), and partners reach no tenant data, so the
// gateway is driven here with a partner caller directly; the success path of the portal's batched reference is
// subgraphs/portal/src/modules/tenants/references.test.ts.

const token = "internal-token-for-tests";
let env: Awaited<ReturnType<typeof portalWithClock>>;
let paymentsDeps: Awaited<ReturnType<typeof openTestPayments>>;
let gateway: ApolloServer<GatewayContext>;
/** Store reads by the portal so far: one statement each. */
let storeReads: () => number;
const partner: Caller = { type: "partner", id: String(randomInt(1, 2_000_000_000)), scopes: [] };
const stores: number[] = [];

async function run(caller: Caller, query: string) {
  const response = await gateway.executeOperation({ query }, { contextValue: { caller } });
  if (response.body.kind !== "single") throw new Error("expected a single result");
  const { data, errors } = response.body.singleResult;
  return { data: data as any, codes: errors?.map((error) => error.extensions?.code) };
}

beforeAll(async () => {
  env = await portalWithClock();
  paymentsDeps = await openTestPayments();
  const branch = await seedBranch(env.portal);
  stores.push(branch.store.id, branch.otherStore.id);
  // Five intents of the partner, spread over both stores of the branch.
  await paymentsDeps.db.query(
    `INSERT INTO payment_intents (id, merchant_id, store_id, client_partner_id, merchant_ref_id, amount, currency,
       payment_method_types, processing_mode, status, updated_at, expires_at)
     SELECT 'pi_' || gen_random_uuid(), $1, ($2::int[])[1 + n % 2], $3, gen_random_uuid()::text, 1200, 'JPY',
       '{qr_mpm}', 'pgw_processed', 'requires_payment_method', now(), now() + interval '30 minutes'
     FROM generate_series(1, 5) AS n`,
    [branch.merchant.id, stores, Number(partner.id)],
  );
  const pos = { execute: async () => ({ errors: [{ message: "pos is not part of this test" }] }) };
  ({ server: gateway } = await startGraphQL({
    supergraphSdl: readFileSync(join(repositoryRoot, "schema", "supergraph.graphql"), "utf8"),
    subgraphs: {
      portal: { host: hostSubgraph(portal, env.portal, token) },
      payments: { host: hostSubgraph(payments, paymentsDeps, token) },
      pos: { host: pos as unknown as SubgraphHost },
    },
    internalToken: token,
    limits: graphQLLimits(),
    schemaDetails: false,
  }));
  // Prisma's model delegates cannot be spied on with vi.spyOn; the portal's repositories read the property.
  const model = env.portal.prisma.store as unknown as Record<string, Mock>;
  const counted = ["findMany", "findUnique"].map((method) => {
    model[method] = vi.fn(model[method]!.bind(model));
    return model[method];
  });
  storeReads = () => counted.reduce((sum, read) => sum + read.mock.calls.length, 0);
});
afterAll(async () => {
  await gateway?.stop();
  await paymentsDeps?.close();
  await env?.close();
});

describe("PaymentIntent.store", () => {
  it("asks the portal for every intent's store at once, and the portal refuses a partner each store", async () => {
    const before = storeReads();
    const result = await run(partner, "{ paymentIntents(limit: 10) { nodes { id store_id store { id name } } } }");
    expect(result.data.paymentIntents.nodes).toHaveLength(5);
    for (const intent of result.data.paymentIntents.nodes) {
      expect(stores).toContain(intent.store_id);
      expect(intent.store).toBeNull();
    }
    expect(result.codes).toEqual(Array(5).fill("FORBIDDEN"));
    // One statement for the five references (two distinct stores), not one per intent.
    expect(storeReads() - before).toBe(1);
  });

  it("tells nobody without a caller anything", async () => {
    const result = await run({ type: "anonymous", scopes: [] }, "{ paymentIntents { nodes { id store { id } } } }");
    expect(result.data).toBeNull();
    expect(result.codes).toEqual(["UNAUTHENTICATED"]);
  });
});

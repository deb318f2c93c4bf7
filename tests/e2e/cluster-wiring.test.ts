import { randomBytes } from "node:crypto";
import { hostSubgraph, serveSubgraph } from "@pos-cloud/common";
import { memoryBus } from "@pos-cloud/common/messaging";
import { startEdge } from "@pos-cloud/edge";
import { openPayments, payments } from "@pos-cloud/payments";
import { openPortal, portal } from "@pos-cloud/portal";
import { openPos, portalClient, pos } from "@pos-cloud/pos";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedStorage } from "../support/databases";
import { humanToken } from "../support/device";
import { postGraphQL } from "../support/platform";
import { operator } from "../support/portal-seed";

// The cluster wiring: every subgraph behind its own HTTP server, the gateway reaching them by URL.
describe("the gateway over HTTP subgraphs", () => {
  const internalToken = randomBytes(32).toString("hex");
  const closers: (() => Promise<unknown>)[] = [];
  let edgeUrl: string;
  let portalUrl: string;
  let storeId: number;
  let token: string;

  beforeAll(async () => {
    const storage = await isolatedStorage(["portal", "pos", "payments"]);
    closers.push(() => storage.drop());
    const portalDeps = await openPortal({ url: storage.urls.portal, masterKey: randomBytes(32) });
    // The POS reaches the portal's API by URL, known once the portal listens.
    const posDeps = await openPos({
      url: storage.urls.pos,
      portal: (...call) => portalClient({ url: portalUrl }, internalToken)(...call),
    });
    const paymentsDeps = await openPayments({ url: storage.urls.payments, masterKey: randomBytes(32) });
    closers.unshift(() => Promise.all([portalDeps.close(), posDeps.close(), paymentsDeps.close()]));
    const servers = await Promise.all([
      serveSubgraph(hostSubgraph(portal, portalDeps, internalToken), { port: 0, host: "127.0.0.1" }),
      serveSubgraph(hostSubgraph(pos, posDeps, internalToken), { port: 0, host: "127.0.0.1" }),
      serveSubgraph(hostSubgraph(payments, paymentsDeps, internalToken), { port: 0, host: "127.0.0.1" }),
    ]);
    closers.unshift(() => Promise.all(servers.map((server) => server.close())));
    const [portalServer, posServer, paymentsServer] = servers;
    portalUrl = portalServer!.url;
    const edge = await startEdge({
      port: 0,
      host: "127.0.0.1",
      internalToken,
      bus: memoryBus(),
      subgraphs: { portal: { url: portalUrl }, pos: { url: posServer!.url }, payments: { url: paymentsServer!.url } },
    });
    closers.unshift(() => edge.close());
    edgeUrl = `http://127.0.0.1:${edge.port}`;
    const psp = await portalDeps.tenants.createPsp(operator, { code: "CLUSTER-PSP", name: "Cluster PSP" });
    const merchant = await portalDeps.tenants.createMerchant(operator, {
      psp_id: psp.id,
      code: "M1",
      name: "Cluster Merchant",
    });
    const store = await portalDeps.tenants.createStore(operator, {
      merchant_id: merchant.id,
      code: "S1",
      name: "Cluster Store",
    });
    storeId = store.id;
    // The edge verifies it against the portal's JWKS, fetched over the HTTP hop.
    token = await humanToken(portalDeps, {
      role: "STORE_MANAGER",
      psp_id: psp.id,
      merchant_id: merchant.id,
      store_id: store.id,
    });
  });
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it("resolves the cross-subgraph store query through HTTP hops", async () => {
    const { body } = await postGraphQL(
      edgeUrl,
      "query($id: Int!) { store(id: $id) { name merchant { name } open_orders_count payment_intents_count } }",
      { id: storeId },
      token,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.store).toEqual({
      name: "Cluster Store",
      merchant: { name: "Cluster Merchant" },
      open_orders_count: 0,
      payment_intents_count: 0,
    });
  });

  it("answers 400 naming the field a subgraph's own scalar refuses, through the HTTP hop", async () => {
    const { status, body } = await postGraphQL(
      edgeUrl,
      "mutation($id: Int!, $input: UpdateStoreInput!) { updateStore(id: $id, input: $input) { id } }",
      { id: storeId, input: { payment_config: "cash" } },
      token,
    );
    expect(status).toBe(400);
    expect(body.errors?.[0]?.extensions).toEqual({
      code: "INVALID_REQUEST",
      details: { field: "input.payment_config", constraint: "type" },
    });
  });

  it("refuses a client that reaches a subgraph directly, even with forged caller headers", async () => {
    const response = await fetch(portalUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "x-caller-type": "user", "x-role": "SYSTEM_OP" },
      body: JSON.stringify({ query: "{ psps { nodes { code } } }" }),
    });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { data?: unknown; errors: { extensions: { code: string } }[] };
    expect(body.data).toBeUndefined();
    expect(body.errors[0]!.extensions.code).toBe("unauthorized");
  });
});

import { randomInt, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Credentials, signed } from "../support/gateway";
import { grantMerchant } from "../support/payments";
import { getJson, logIn, postGraphQL, postJson, startTestPlatform, type TestPlatform } from "../support/platform";
import { seed } from "../support/seed";

let platform: TestPlatform;
let operator: string;
let partnerId: number;
const gatewayId = () => 2_000_000_000 + randomInt(100_000_000);
const stores = [
  { store_id: gatewayId(), store_code: `RK-A-${randomUUID()}` },
  { store_id: gatewayId(), store_code: `RK-B-${randomUUID()}` },
] as const;
const [storeA, storeB] = stores;

beforeAll(async () => {
  platform = await startTestPlatform({ demo: false });
  operator = (await logIn(platform.baseUrl, await seed(platform).user("SYSTEM_OP", await seed(platform).store())))
    .access_token;
  partnerId = (await postJson(platform.baseUrl, "/api/v1/partners", { name: "Restricted keys" }, operator)).body.id;
  await grantMerchant(platform.payments, partnerId, { merchant_id: gatewayId(), stores: [...stores] });
});
afterAll(() => platform?.close());

const issue = (restriction: Record<string, unknown> = {}) =>
  postJson(platform.baseUrl, `/api/v1/partners/${partnerId}/api-keys`, restriction, operator);
const keyOf = async (restriction: Record<string, unknown> = {}): Promise<Credentials> => {
  const issued = await issue(restriction);
  expect(issued.status).toBe(201);
  return issued.body;
};
const revoke = async (id: string) => {
  const revoked = await fetch(`${platform.baseUrl}/api/v1/partners/${partnerId}/api-keys/${id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${operator}` },
  });
  expect(((await revoked.json()) as { status: string }).status).toBe("revoked");
};
const create = (key: Credentials, store: { store_code: string }) =>
  signed(platform.baseUrl, key, "POST", "/v1/payment_intents", {
    amount: 1500,
    currency: "JPY",
    payment_method_types: ["cash"],
    merchant_ref_id: `order-${randomUUID()}`,
    merchant_store_id: store.store_code,
  });
const intentsOf = async (key: Credentials) =>
  (await signed(platform.baseUrl, key, "GET", "/v1/payment_intents?limit=100")).body as { id: string }[];

describe("restricted API keys", () => {
  it("are issued with their restriction, shown wherever the partner's keys are listed", async () => {
    const issued = await issue({ permissions: ["payment_intents:read"], store_ids: [storeA.store_id] });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ permissions: ["payment_intents:read"], store_ids: [storeA.store_id] });
    const listed = await getJson(platform.baseUrl, `/api/v1/partners/${partnerId}/api-keys`, operator);
    expect(listed.body.find((key: { id: string }) => key.id === issued.body.id)).toMatchObject({
      permissions: ["payment_intents:read"],
      store_ids: [storeA.store_id],
    });
    await revoke(issued.body.id);
  });

  it("are issued and listed over GraphQL the same", async () => {
    const issued = await postGraphQL(
      platform.baseUrl,
      `mutation ($id: Int!, $input: IssueApiKeyInput) {
        issueApiKey(client_partner_id: $id, input: $input) { id permissions store_ids }
      }`,
      { id: partnerId, input: { permissions: ["refunds:write"] } },
      operator,
    );
    const { id, ...restriction } = issued.body.data.issueApiKey;
    expect(restriction).toEqual({ permissions: ["refunds:write"], store_ids: [] });
    const listed = await postGraphQL(
      platform.baseUrl,
      "query ($id: Int!) { clientPartnerApiKeys(client_partner_id: $id) { id permissions store_ids } }",
      { id: partnerId },
      operator,
    );
    expect(listed.body.data.clientPartnerApiKeys).toContainEqual({ id, ...restriction });
    await revoke(id);
  });

  it("refuses an unknown permission or an empty list with a 400 naming the field, and issues nothing", async () => {
    const before = (await getJson(platform.baseUrl, `/api/v1/partners/${partnerId}/api-keys`, operator)).body.length;
    const unknown = await issue({ permissions: ["payment_intents:write", "payouts:write"] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "invalid_request", details: { field: "permissions.1" } });
    const empty = await issue({ store_ids: [] });
    expect(empty.body).toMatchObject({ code: "invalid_request", details: { field: "store_ids" } });
    expect((await getJson(platform.baseUrl, `/api/v1/partners/${partnerId}/api-keys`, operator)).body).toHaveLength(
      before,
    );
  });

  it("answer a call outside the key's permissions with 403 missing_permission naming the permission", async () => {
    const writer = await keyOf();
    const reader = await keyOf({ permissions: ["payment_intents:read"] });
    const before = await intentsOf(writer);
    const refused = await create(reader, storeA);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: "missing_permission",
      details: { permission: "payment_intents:write" },
    });
    expect(await intentsOf(reader)).toEqual(before);
    const sync = await signed(platform.baseUrl, reader, "POST", "/v1/sync/merchants", { merchants: [] });
    expect(sync.body).toMatchObject({ code: "missing_permission", details: { permission: "sync:write" } });
    expect((await create(writer, storeA)).status).toBe(201);
    expect(await intentsOf(reader)).toHaveLength(before.length + 1);
  });

  it("refuse a store outside the key's stores as a store of another partner, and list only the key's", async () => {
    const everywhere = await keyOf();
    const onlyA = await keyOf({ store_ids: [storeA.store_id] });
    const inB = await create(everywhere, storeB);
    expect(inB.status).toBe(201);
    const refused = await create(onlyA, storeB);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "forbidden", details: { field: "merchant_store_id" } });
    const inA = await create(onlyA, storeA);
    expect(inA.status).toBe(201);
    const seen = (await intentsOf(onlyA)).map((intent) => intent.id);
    expect(seen).toContain(inA.body.id);
    expect(seen).not.toContain(inB.body.id);
    const capture = await signed(platform.baseUrl, onlyA, "POST", `/v1/payment_intents/${inB.body.id}/capture`, {});
    expect(capture.body).toMatchObject({ code: "not_found" });
  });
});

import { randomInt } from "node:crypto";
import type { Caller } from "@pos-cloud/common";
import { intentBody, openTestPayments, systemOperator } from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";

let deps: PaymentsDeps;
beforeAll(async () => {
  deps = await openTestPayments();
});
afterAll(() => deps?.close());

const id = () => randomInt(1, 2_000_000_000);
const user = (role: string, place: Partial<Caller> = {}): Caller => ({
  type: "user",
  id: "u",
  role,
  scopes: [],
  ...place,
});

/** A merchant of a PSP with two stores, as the platform's sync places them, and a partner with no grant yet. */
async function merchantAndPartner() {
  const pspId = id();
  const merchant = { id: id(), stores: [id(), id()] };
  const holder = await deps.partners.createPartner("sync stand-in");
  await deps.prisma.merchant.create({
    data: {
      id: merchant.id,
      psp_id: pspId,
      client_partner_id: holder.id,
      stores: { create: merchant.stores.map((store) => ({ id: store, store_code: `G${store}` })) },
    },
  });
  const partner = await deps.partners.createPartner("granted partner");
  const caller: Caller = { type: "partner", id: String(partner.id), scopes: [] };
  return { pspId, merchant, partner, caller };
}

describe("partner grants", () => {
  it("are granted by L0 anywhere and L1 of the merchant's PSP; L2 lists and revokes them but may not grant", async () => {
    const { pspId, merchant, partner } = await merchantAndPartner();
    const whole = { merchant_id: merchant.id };
    const l1 = user("PSP_ADMIN", { pspId });
    const l2 = user("MERCHANT_ADMIN", { pspId, merchantId: merchant.id });
    for (const refused of [
      l2,
      user("STORE_MANAGER", { merchantId: merchant.id, storeId: merchant.stores[0] }),
      { type: "partner", id: String(partner.id), scopes: [] } satisfies Caller,
    ]) {
      await expect(deps.grants.grant(refused, partner.id, whole)).rejects.toMatchObject({ code: "forbidden" });
    }
    // Another PSP's merchant is outside its admin's place: not found, as every resource there is.
    await expect(deps.grants.grant(user("PSP_ADMIN", { pspId: pspId + 1 }), partner.id, whole)).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await deps.prisma.partnerGrant.count({ where: { client_partner_id: partner.id } })).toBe(0);

    const [granted] = (await deps.grants.grant(l1, partner.id, whole)).grants;
    expect(granted).toMatchObject({ merchant_id: merchant.id, store_id: null, status: "active", granted_by: "user:u" });
    expect((await deps.grants.merchantGrants(l2, merchant.id, {})).nodes).toEqual([granted]);
    expect((await deps.grants.partnerGrants(l2, partner.id, {})).total_count).toBe(1);
    expect((await deps.grants.partnerGrants(user("PSP_ADMIN", { pspId: pspId + 1 }), partner.id, {})).nodes).toEqual(
      [],
    );
    await expect(
      deps.grants.merchantGrants(user("MERCHANT_ADMIN", { merchantId: merchant.id + 1 }), merchant.id, {}),
    ).rejects.toMatchObject({ code: "not_found" });

    const revoked = await deps.grants.revoke(l2, partner.id, granted!.id);
    expect(revoked).toMatchObject({ id: granted!.id, status: "revoked", revoked_by: "user:u" });
    // Revoking again changes nothing and answers the grant as it is.
    expect(await deps.grants.revoke(systemOperator, partner.id, granted!.id)).toEqual(revoked);
    const audit = await deps.prisma.outboxEvent.findMany({
      where: { event_type: "audit.recorded", payload: { path: ["target", "id"], equals: granted!.id } },
    });
    expect(audit.map((row) => (row.payload as { event: string }).event).sort()).toEqual([
      "partner_grant.created",
      "partner_grant.revoked",
    ]);
  });

  it("answers what a live grant covers with that grant instead of granting it twice", async () => {
    const { merchant, partner } = await merchantAndPartner();
    const [first] = (await deps.grants.grant(systemOperator, partner.id, { merchant_id: merchant.id })).grants;
    const again = await Promise.all([
      deps.grants.grant(systemOperator, partner.id, { merchant_id: merchant.id }),
      deps.grants.grant(systemOperator, partner.id, { merchant_id: merchant.id, store_ids: merchant.stores }),
    ]);
    expect(again.flatMap((answer) => answer.grants.map((grant) => grant.id))).toEqual([
      first!.id,
      first!.id,
      first!.id,
    ]);
    expect(await deps.prisma.partnerGrant.count({ where: { client_partner_id: partner.id } })).toBe(1);
  });

  it("refuses bad input and another merchant's store, changing nothing", async () => {
    const { merchant, partner } = await merchantAndPartner();
    const other = await merchantAndPartner();
    const grant = (input: unknown) => deps.grants.grant(systemOperator, partner.id, input);
    await expect(grant({ merchant_id: "one" })).rejects.toMatchObject({ details: { field: "merchant_id" } });
    await expect(grant({ merchant_id: merchant.id, store_ids: [] })).rejects.toMatchObject({
      details: { field: "store_ids" },
    });
    await expect(grant({ merchant_id: merchant.id, extra: 1 })).rejects.toMatchObject({ details: { field: "extra" } });
    await expect(grant({ merchant_id: merchant.id, store_ids: other.merchant.stores })).rejects.toMatchObject({
      code: "invalid_request",
      details: { field: "store_ids", constraint: "merchant_store" },
    });
    await expect(grant({ merchant_id: 2_147_483_000 })).rejects.toMatchObject({ code: "not_found" });
    await expect(deps.grants.grant(systemOperator, 2_147_483_000, { merchant_id: merchant.id })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await deps.prisma.partnerGrant.count({ where: { client_partner_id: partner.id } })).toBe(0);
  });

  it("lets a partner act only on the stores granted to it", async () => {
    const { merchant, partner, caller } = await merchantAndPartner();
    const [granted, other] = merchant.stores as [number, number];
    const create = (store: number) =>
      deps.paymentIntents.create(
        caller,
        intentBody({ merchant_store_id: String(store), payment_method_types: ["cash"] }),
      );
    await expect(create(granted)).rejects.toMatchObject({ details: { constraint: "unknown_store" } });
    await deps.grants.grant(systemOperator, partner.id, { merchant_id: merchant.id, store_ids: [granted] });
    expect((await create(granted)).payment_intent.status).toBe("succeeded");
    await expect(create(other)).rejects.toMatchObject({ details: { constraint: "unknown_store" } });
    // With one store granted, it is the default.
    const defaulted = await deps.paymentIntents.create(caller, intentBody({ payment_method_types: ["cash"] }));
    expect(defaulted.payment_intent).toMatchObject({ store_id: granted });
  });

  it("after a revoke: no new intent nor refund, while open intents finish and stay readable", async () => {
    const { merchant, partner, caller } = await merchantAndPartner();
    const [grant] = (await deps.grants.grant(systemOperator, partner.id, { merchant_id: merchant.id })).grants;
    const card = () =>
      intentBody({ merchant_store_id: `G${merchant.stores[0]}`, payment_method_types: ["credit_card"] });
    const captured = (await deps.paymentIntents.create(caller, card())).payment_intent;
    await deps.paymentIntents.capture(caller, captured.id, {});
    const open = (await deps.paymentIntents.create(caller, card())).payment_intent;
    const cancelled = await deps.paymentIntents.create(caller, card());

    await deps.grants.revoke(systemOperator, partner.id, grant!.id);
    await expect(deps.paymentIntents.create(caller, card())).rejects.toMatchObject({
      details: { constraint: "unknown_store" },
    });
    await expect(deps.refunds.refund(caller, captured.id, { amount: 100 })).rejects.toMatchObject({
      code: "forbidden",
    });
    expect(await deps.prisma.refund.count({ where: { payment_intent_id: captured.id } })).toBe(0);
    expect((await deps.paymentIntents.capture(caller, open.id, {})).payment_intent.status).toBe("succeeded");
    const { payment_intent, payment_token } = cancelled;
    expect((await deps.paymentIntents.cancel(payment_intent.id, payment_token!.token)).status).toBe("cancelled");
    expect((await deps.paymentIntents.list(caller, {})).total_count).toBe(3);
  });
});

import { AUDIT_RECORDED, type AuditRecorded, type Caller } from "@pos-cloud/common";
import { memoryBus } from "@pos-cloud/common/messaging";
import { callerOf, portalWithClock, seedTenant } from "@pos-cloud/test-support/identity";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The audit trail's storage and reads on the test's own database (PostgreSQL under TEST_POSTGRES_URL): append-only,
// one hash chain however many write at once, records of other subgraphs once per event, reads within scope.
describe("the audit trail", () => {
  let env: Awaited<ReturnType<typeof portalWithClock>>;
  let tenant: Awaited<ReturnType<typeof seedTenant>>;
  const platform: Caller = { type: "service", id: "platform", scopes: [] };

  beforeAll(async () => {
    env = await portalWithClock();
    tenant = await seedTenant(env.portal);
  });
  afterAll(() => env?.close());

  const trail = () => env.portal.auditTrail;
  const sql = <Row>(text: string) => env.portal.db.query<Row>(text);

  // On PostgreSQL the appends run on a pool of connections: the advisory lock alone keeps them on one chain.
  it("keeps one unbroken chain under concurrent appends", async () => {
    const before = (await trail().verify()).records;
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        env.portal.audit.record(
          { event: "user.login", user_id: null, success: true, metadata: { i }, place: { store_id: tenant.store.id } },
          platform,
        ),
      ),
    );
    expect(await trail().verify()).toEqual({ records: before + 40, unchained: 0 });
    const [row] = await sql<{ n: number; top: number }>(
      "SELECT count(*)::int AS n, max(seq)::int AS top FROM audit_log",
    );
    expect(row).toEqual({ n: before + 40, top: before + 40 });
  });

  it("refuses UPDATE, DELETE and TRUNCATE in the database itself", async () => {
    await env.portal.audit.record({ event: "user.logout", user_id: null, success: true }, platform);
    await expect(sql("UPDATE audit_log SET success = false")).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(sql("DELETE FROM audit_log")).rejects.toThrow(/append-only: DELETE refused/);
    await expect(sql("TRUNCATE audit_log")).rejects.toThrow(/append-only: TRUNCATE refused/);
    expect((await trail().verify()).broken).toBeUndefined();
  });

  it("appends another subgraph's record once, however often its event is delivered", async () => {
    const bus = memoryBus();
    const consumer = await trail().consume(bus);
    const record: AuditRecorded = {
      event: "payment.completed",
      timestamp: new Date().toISOString(),
      user_id: null,
      actor_type: "device",
      actor_id: "a-device",
      ip_address: null,
      user_agent: null,
      success: true,
      target: { type: "pos_payment", id: `pay-${Date.now()}` },
      place: { store_id: tenant.store.id },
      metadata: { amount: 1200 },
    };
    const event = {
      id: `01J${Date.now()}`,
      event_type: AUDIT_RECORDED,
      aggregate_type: "audit",
      aggregate_id: record.target!.id,
      payload: record as unknown as Record<string, unknown>,
      created_at: record.timestamp,
    };
    await bus.publish("events.internal", event);
    await bus.publish("events.internal", event);
    const found = () => env.portal.prisma.auditLog.findMany({ where: { target_id: record.target!.id } });
    await expect.poll(async () => (await found()).length).toBe(1);
    await bus.publish("events.internal", { ...event, id: `${event.id}X` });
    await expect.poll(async () => (await found()).length).toBe(2);
    // The place is completed up the hierarchy when the record is written: the store gives its merchant and PSP.
    expect((await found())[0]).toMatchObject({
      store_id: tenant.store.id,
      merchant_id: tenant.merchant.id,
      psp_id: tenant.psp.id,
    });
    await consumer.stop();
    await bus.close();
  });

  it("answers each tier within its reach, and refuses staff", async () => {
    const target = `scope-${Date.now()}`;
    const inStore = {
      event: "device.suspend" as const,
      user_id: null,
      success: true,
      target: { type: "device", id: target },
    };
    await env.portal.audit.record({ ...inStore, place: { store_id: tenant.store.id } }, platform);
    await env.portal.audit.record({ ...inStore, place: { store_id: tenant.otherStore.id } }, platform);
    const other = await seedTenant(env.portal);
    const seen = async (user: Parameters<typeof callerOf>[0]) =>
      (await trail().list(callerOf(user), { target })).nodes.map((record) => record.store_id);
    expect(await seen(await tenant.user("MERCHANT_ADMIN"))).toEqual([tenant.otherStore.id, tenant.store.id]);
    expect(await seen(await tenant.user("PSP_ADMIN"))).toHaveLength(2);
    expect(await seen(await tenant.user("AREA_MANAGER"))).toEqual([tenant.store.id]);
    expect(await seen(await tenant.user("STORE_MANAGER"))).toEqual([tenant.store.id]);
    expect(await seen(await other.user("MERCHANT_ADMIN"))).toEqual([]);
    expect(await seen(await other.user("PSP_ADMIN"))).toEqual([]);
    await expect(trail().list(callerOf(await tenant.user("STAFF_LEADER")), {})).rejects.toMatchObject({
      code: "forbidden",
    });
  });

  it("exports at most 31 days, oldest first", async () => {
    const admin = callerOf(await tenant.user("MERCHANT_ADMIN"));
    const to = new Date();
    const from = new Date(to.getTime() - 32 * 24 * 60 * 60 * 1000);
    await expect(trail().exportPage(admin, { from, to })).rejects.toMatchObject({
      code: "invalid_request",
      details: { field: "from", constraint: "max_range_31_days" },
    });
    const page = await trail().exportPage(admin, { event: "device.*" });
    const seqs = page.nodes.map((record) => record.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => (a < b ? -1 : 1)));
  });

  // Last: it breaks the chain of this file's database, on purpose.
  it("names the first broken link when a record was changed behind the trigger's back", async () => {
    await env.portal.audit.record({ event: "user.logout", user_id: null, success: true }, platform);
    await env.portal.audit.record({ event: "user.logout", user_id: null, success: true }, platform);
    expect((await trail().verify()).broken).toBeUndefined();
    const [victim] = await sql<{ id: string; seq: number }>(
      "SELECT id, seq::int AS seq FROM audit_log ORDER BY seq DESC OFFSET 1 LIMIT 1",
    );
    await sql("ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete");
    await sql(`UPDATE audit_log SET success = false WHERE id = '${victim!.id}'`);
    await sql("ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_delete");
    expect((await trail().verify()).broken).toEqual({
      seq: BigInt(victim!.seq),
      id: victim!.id,
      reason: "hash does not match the record's content",
    });
  });
});

import type { Caller } from "@pos-cloud/common";
import { portalWithClock } from "@pos-cloud/test-support/identity";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

// The outside probe's attacks on the audit log, each done as the probe did: in SQL, by someone with database access who
// switches the append-only trigger off. Each test tampers with a log of its own, five records long, and verify names
// what was done and where.
// switches the append-only trigger off. Each test tampers with the same five records; the untouched log is put back
// after each (one portal for the file: opening one per test took most of the file's time).
describe("the audit chain against a database user", () => {
  let env: Awaited<ReturnType<typeof portalWithClock>>;
  const platform: Caller = { type: "service", id: "platform", scopes: [] };
  const sql = <Row>(text: string) => env.portal.db.query<Row>(text);
  const behindTheTrigger = async (statements: string) => {
    await sql("ALTER TABLE audit_log DISABLE TRIGGER USER");
    await env.portal.db.exec(statements);
    await sql("ALTER TABLE audit_log ENABLE TRIGGER USER");
  };

  beforeAll(async () => {
    env = await portalWithClock();
    for (let i = 1; i <= 5; i++) {
      await env.portal.audit.record({ event: "user.login", user_id: null, success: true, metadata: { i } }, platform);
    }
    await env.portal.db.exec(
      "CREATE TABLE untouched_log AS SELECT * FROM audit_log; CREATE TABLE untouched_head AS SELECT * FROM audit_chain_head",
    );
  });
  beforeEach(async () => {
    expect(await env.portal.auditTrail.verify()).toEqual({ records: 5, unchained: 0 });
  });
  afterEach(() =>
    behindTheTrigger(
      "DELETE FROM audit_log; INSERT INTO audit_log SELECT * FROM untouched_log; " +
        "DELETE FROM audit_chain_head; INSERT INTO audit_chain_head SELECT * FROM untouched_head",
    ),
  );
  afterAll(() => env?.close());

  const idAt = async (seq: number) => (await sql<{ id: string }>(`SELECT id FROM audit_log WHERE seq = ${seq}`))[0]!.id;
  const verify = () => env.portal.auditTrail.verify();

  it("names records whose hashes were all set to NULL", async () => {
    const first = await idAt(1);
    await behindTheTrigger("UPDATE audit_log SET hash = NULL, prev_hash = NULL");
    expect((await verify()).broken).toEqual({
      seq: 1n,
      id: first,
      reason: "unhashed record inside the chain: its hash was removed",
    });
  });

  it("names hashes set to NULL and the chain's start moved past them", async () => {
    await behindTheTrigger(
      "UPDATE audit_log SET hash = NULL, prev_hash = NULL; UPDATE audit_chain_head SET first_seq = 6",
    );
    expect((await verify()).broken).toMatchObject({
      seq: 5n,
      reason: "the sealed head's seal does not hold: it was changed outside the platform",
    });
  });

  it("names an edited record", async () => {
    const edited = await idAt(3);
    await behindTheTrigger(`UPDATE audit_log SET success = false WHERE seq = 3`);
    expect((await verify()).broken).toEqual({
      seq: 3n,
      id: edited,
      reason: "hash does not match the record's content",
    });
  });

  it("names records cut from the end", async () => {
    await behindTheTrigger("DELETE FROM audit_log WHERE seq >= 4");
    expect((await verify()).broken).toEqual({
      seq: 4n,
      id: null,
      reason: "records cut from the end: the sealed head is seq 5, the log ends at seq 3",
    });
  });

  // The appends after the cut do not seal a new head over it: the old head stays for verify to compare.
  it("names the cut even after the platform appended as many records again", async () => {
    await behindTheTrigger("DELETE FROM audit_log WHERE seq >= 4");
    await env.portal.audit.record({ event: "user.logout", user_id: null, success: true }, platform);
    await env.portal.audit.record({ event: "user.logout", user_id: null, success: true }, platform);
    expect((await verify()).broken).toMatchObject({
      seq: 5n,
      reason: "the last record is not the one the head sealed",
    });
  });

  it("names a record deleted from the middle", async () => {
    const after = await idAt(3);
    await behindTheTrigger("DELETE FROM audit_log WHERE seq = 2");
    expect((await verify()).broken).toEqual({ seq: 3n, id: after, reason: "seq 3 follows 1: records are missing" });
  });

  it("names a deleted or forged head", async () => {
    await behindTheTrigger("UPDATE audit_chain_head SET seq = 3");
    expect((await verify()).broken?.reason).toBe(
      "the sealed head's seal does not hold: it was changed outside the platform",
    );
    await behindTheTrigger("DELETE FROM audit_chain_head");
    expect((await verify()).broken).toEqual({
      seq: 5n,
      id: null,
      reason: "the chain's sealed head is missing: it was deleted",
    });
  });
});

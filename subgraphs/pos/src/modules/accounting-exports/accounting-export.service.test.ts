import { randomInt, randomUUID } from "node:crypto";
import { join } from "node:path";
import type { Caller } from "@pos-cloud/common";
import { STORE_TIME_ZONE } from "@pos-cloud/common";
import { seedEmbeddedStorage } from "@pos-cloud/test-support/databases";
import { onPostgres, temporaryDirectory, testStorage } from "@pos-cloud/test-support/environment";
import { sshFingerprint } from "@pos-cloud/test-support/ssh-fingerprint";
import { Cron } from "croner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedSftpControl, newSshKeyPair, startEmbeddedSftp } from "../../../../../apps/sandbox-sftp/src/embedded";
import { type RunningSftp, sftpControl, startSftpServer } from "../../../../../apps/sandbox-sftp/src/sftp-server";
import type { PosDeps } from "../../context";
import { openPos } from "../../index";
import { ACCOUNTING_EXPORT_CRON } from "../../jobs";
import type { PortalCall, StorePlace } from "../stores";

// The export's run as workers run it: two POS processes on one database (PostgreSQL; one process on embedded
// storage) export the same day at once, and a delivery a dead process held is taken up once its lease ends. The
// portal is not asked: the run acts as the system on POS's own rows.
const merchantId = randomInt(1, 2_000_000_000);
const storeId = randomInt(1, 2_000_000_000);
const operator: Caller = { type: "user", id: randomUUID(), role: "SYSTEM_OP", scopes: [] };
const noPortal: PortalCall = async () => ({ errors: [{ message: "the export asks the portal nothing" }] });

const D = "2031-04-10";
/** A moment of Asia/Tokyo local time on a date. */
const at = (date: string, time: string) => new Date(`${date}T${time}+09:00`);

/** A paid bill of 1100 with 10% tax (100) of a store, as the bill and payment services leave it. */
async function sale(pos: PosDeps, store: StorePlace, completed: Date) {
  const bill = await pos.prisma.bill.create({
    data: {
      merchant_id: store.merchantId,
      store_id: store.storeId,
      bill_number: `B-${randomUUID()}`,
      staff_code: "STF-001-001",
      tax_percentage: 10,
      subtotal: 1000,
      discount_amount: 0,
      tax_amount: 100,
      total_amount: 1100,
      paid_amount: 1100,
      status: "paid",
      table_numbers: [],
      combined_bill_ids: [],
      combined_table_numbers: [],
    },
  });
  await pos.prisma.payment.create({
    data: {
      id: randomUUID(),
      merchant_id: store.merchantId,
      store_id: store.storeId,
      bill_id: bill.id,
      amount: 1100,
      total_amount: 1100,
      method_type: "CASH",
      status: "completed",
      created_at: completed,
      occurred_at: completed,
      completed_at: completed,
    },
  });
}

describe("the accounting export's run by several workers", () => {
  const clock = { now: at("2031-04-11", "00:00:05") };
  const dir = temporaryDirectory("accounting-export-");
  let workers: PosDeps[];
  let sftp: Awaited<ReturnType<typeof startEmbeddedSftp>>;
  const fileName = `settlement_${merchantId}_${storeId}_20310410.json`;
  const arrivals = () =>
    embeddedSftpControl(dir.path)
      .received()
      .filter((file) => file.path === `/${fileName}`).length;
  const delivery = () =>
    workers[0]!.prisma.accountingExportDelivery.findUniqueOrThrow({
      where: { store_id_business_date: { store_id: storeId, business_date: D } },
    });

  beforeAll(async () => {
    if (!onPostgres) await seedEmbeddedStorage(dir.path);
    const open = () => openPos({ ...testStorage("pos"), dataDir: dir.path, portal: noPortal, clock: () => clock.now });
    const first = await open();
    workers = [first, onPostgres ? await open() : first];
    sftp = await startEmbeddedSftp({ dataDir: dir.path, host: "127.0.0.1" });
    await first.accountingExports.configureExport(operator, {
      merchant_id: merchantId,
      format: "json",
      host: "127.0.0.1",
      port: sftp.port,
      username: sftp.account.username,
      private_key: sftp.clientPrivateKey,
    });
    const store = { merchantId, storeId };
    await sale(first, store, at(D, "12:00:00"));
    await sale(first, store, at(D, "23:59:59"));
    // The next day's sale is not D's.
    await sale(first, store, at("2031-04-11", "00:00:01"));
  });
  afterAll(async () => {
    for (const worker of new Set(workers)) await worker.close();
    await sftp?.close();
    dir.remove();
  });

  it("runs at 00:00 Asia/Tokyo", () => {
    const cron = new Cron(ACCOUNTING_EXPORT_CRON, { timezone: STORE_TIME_ZONE });
    expect(cron.nextRun(at(D, "23:59:00"))).toEqual(at("2031-04-11", "00:00:00"));
  });

  it("delivers a day once when every worker runs it at the same time", async () => {
    await Promise.all(
      workers.flatMap((worker) => [worker.accountingExports.exportEndedDay(), worker.accountingExports.exportDay(D)]),
    );
    expect(await delivery()).toMatchObject({ status: "delivered", attempts: 1, file_name: fileName });
    expect(arrivals()).toBe(1);
    const file = JSON.parse((await delivery()).content);
    expect(file.transactions).toHaveLength(2);
    expect(file.totals).toEqual({ gross_revenue: 2200, tax_collected: 200, net_revenue: 2200 });
    await Promise.all(workers.map((worker) => worker.accountingExports.exportDay(D)));
    expect(arrivals()).toBe(1);
  });

  it("takes up a delivery a dead worker held once its lease ends, and delivers it once", async () => {
    const heldUntil = new Date(clock.now.getTime() + 5 * 60_000);
    // A worker claimed the delivery again (its lease is the next attempt's time) and died before it ended.
    await workers[0]!.prisma.accountingExportDelivery.update({
      where: { id: (await delivery()).id },
      data: { status: "pending", attempts: 1, next_attempt_at: heldUntil },
    });
    expect(await workers[1]!.accountingExports.deliverDue()).toBe(0);
    clock.now = heldUntil;
    const attempted = await Promise.all(workers.map((worker) => worker.accountingExports.deliverDue()));
    expect(attempted.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await delivery()).toMatchObject({ status: "delivered", attempts: 2 });
    expect(arrivals()).toBe(2);
  });
});

// The SFTP server's host key as OpenSSH's known_hosts keeps it: a key given with the settings, or the first
// connection's, is the only one a delivery goes to. The sandbox server is started again with another key to stand
// for a connection sent elsewhere.
describe("the SFTP server's host key", () => {
  const clock = { now: at("2031-04-11", "00:00:05") };
  const dir = temporaryDirectory("accounting-export-host-key-");
  const stateDir = join(dir.path, "sftp");
  const account = { username: "accounting", password: randomUUID(), publicKey: newSshKeyPair().public };
  const [ours, another] = [newSshKeyPair().private, newSshKeyPair().private];
  let pos: PosDeps;
  let server: RunningSftp | undefined;
  /** The server on the same port each time, showing `hostKey`. */
  const serve = async (hostKey: string) => {
    await server?.close();
    server = await startSftpServer({ host: "127.0.0.1", port: server?.port, stateDir, hostKey, account });
  };

  const configure = (store: StorePlace, settings: Record<string, unknown>) =>
    pos.accountingExports.configureExport(operator, {
      merchant_id: store.merchantId,
      format: "json",
      host: "127.0.0.1",
      port: server!.port,
      username: account.username,
      password: account.password,
      ...settings,
    });
  /** A merchant of its own whose one store sold on D, its export set with `settings`. */
  async function merchantWith(settings: Record<string, unknown>) {
    const store = { merchantId: randomInt(1, 2_000_000_000), storeId: randomInt(1, 2_000_000_000) };
    await sale(pos, store, at(D, "12:00:00"));
    await configure(store, settings);
    return store;
  }
  const arrivals = (store: StorePlace) =>
    sftpControl(stateDir)
      .received()
      .filter((file) => file.path === `/settlement_${store.merchantId}_${store.storeId}_20310410.json`).length;
  const settingsOf = (store: StorePlace) => pos.accountingExports.settings(operator, store.merchantId);
  const mismatch = (pinned: string, shown: string) =>
    `the SFTP server's host key did not match: the settings pin ${pinned}, the server showed ${shown}; nothing was sent`;

  beforeAll(async () => {
    if (!onPostgres) await seedEmbeddedStorage(dir.path);
    pos = await openPos({ ...testStorage("pos"), dataDir: dir.path, portal: noPortal, clock: () => clock.now });
    pos.accountingExports.configure({ timeoutMs: 5000 });
    await serve(ours);
  });
  afterAll(async () => {
    await pos?.close();
    await server?.close();
    dir.remove();
  });

  /** The fingerprints each change of the merchant's settings put on the audit record, in order. */
  const auditedFingerprints = async (store: StorePlace) =>
    (
      await pos.prisma.outboxEvent.findMany({
        where: { aggregate_id: `accounting_export:${store.merchantId}` },
        orderBy: { seq: "asc" },
      })
    ).map((row) => (row.payload as { metadata: { host_key_fingerprint: unknown } }).metadata.host_key_fingerprint);

  it("delivers to a server showing the pinned key", async () => {
    const store = await merchantWith({ host_key_fingerprint: sshFingerprint(ours) });
    expect(await pos.accountingExports.sendAgain(store, D)).toMatchObject({ status: "delivered", attempts: 1 });
    expect(arrivals(store)).toBe(1);
    expect(await settingsOf(store)).toMatchObject({
      host_key_fingerprint: sshFingerprint(ours),
      host_key_learned_at: null,
    });
    expect(await auditedFingerprints(store)).toEqual([sshFingerprint(ours)]);
  });

  it("sends nothing to a server showing another key: each attempt fails, the fifth with its audit record", async () => {
    const pinned = sshFingerprint(another);
    const store = await merchantWith({ host_key_fingerprint: pinned });
    const error = mismatch(pinned, sshFingerprint(ours));
    const delivery = await pos.accountingExports.sendAgain(store, D);
    expect(delivery).toMatchObject({ status: "pending", attempts: 1, last_error: error });
    for (const attempts of [2, 3, 4, 5]) {
      clock.now = new Date(clock.now.getTime() + 30 * 60_000);
      await pos.accountingExports.deliverDue();
      const [row] = await pos.accountingExports.deliveries(operator, { merchant_id: store.merchantId });
      expect(row).toMatchObject({ attempts, last_error: error, status: attempts === 5 ? "failed" : "pending" });
    }
    expect(arrivals(store)).toBe(0);
    const audit = await pos.prisma.outboxEvent.findFirstOrThrow({
      where: { aggregate_id: `accounting_export_delivery:${delivery.id}` },
    });
    expect(audit.payload).toMatchObject({
      event: "accounting_export.failed",
      success: false,
      metadata: { attempts: 5, last_error: error },
    });
  });

  it("refuses a fingerprint not written as ssh-keygen -lf prints it, naming the field and changing nothing", async () => {
    const store = await merchantWith({ host_key_fingerprint: sshFingerprint(ours) });
    const before = await settingsOf(store);
    const digits = sshFingerprint(ours).slice("SHA256:".length);
    for (const written of [
      digits,
      `SHA256:${digits}=`,
      `MD5:${digits}`,
      `SHA256:${digits.slice(1)}`,
      // 43 digits hold 258 bits: a last digit using the two beyond the SHA-256's 256 is no digest's.
      `SHA256:${digits.slice(0, 42)}B`,
      `256 SHA256:${digits} accounting@server (ECDSA)`,
    ])
      await expect(configure(store, { host_key_fingerprint: written }), written).rejects.toMatchObject({
        code: "invalid_request",
        details: { field: "host_key_fingerprint" },
      });
    expect(await settingsOf(store)).toEqual(before);
  });

  it("trusts the first connection's key, then refuses the server restarted with another until set again", async () => {
    const store = await merchantWith({});
    expect(await settingsOf(store)).toMatchObject({ host_key_fingerprint: null, host_key_learned_at: null });
    expect(await pos.accountingExports.sendAgain(store, D)).toMatchObject({ status: "delivered" });
    expect(await settingsOf(store)).toMatchObject({
      host_key_fingerprint: sshFingerprint(ours),
      host_key_learned_at: clock.now,
    });

    await serve(another);
    expect(await pos.accountingExports.sendAgain(store, D)).toMatchObject({
      status: "pending",
      last_error: mismatch(sshFingerprint(ours), sshFingerprint(another)),
    });
    expect(arrivals(store)).toBe(1);

    // The merchant's admin sets the export again without a fingerprint: the new key is trusted in its turn.
    await configure(store, {});
    expect(await pos.accountingExports.sendAgain(store, D)).toMatchObject({ status: "delivered" });
    expect(await settingsOf(store)).toMatchObject({ host_key_fingerprint: sshFingerprint(another) });
    expect(arrivals(store)).toBe(2);
    // Learning a key is no change of the settings: only the merchant's two are on the audit record.
    expect(await auditedFingerprints(store)).toEqual([null, null]);
  });
});

import { randomInt, randomUUID } from "node:crypto";
import type { Caller } from "@pos-cloud/common";
import { STORE_TIME_ZONE } from "@pos-cloud/common";
import { seedEmbeddedStorage } from "@pos-cloud/test-support/databases";
import { onPostgres, temporaryDirectory, testStorage } from "@pos-cloud/test-support/environment";
import { Cron } from "croner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedSftpControl, startEmbeddedSftp } from "../../../../../apps/sandbox-sftp/src/embedded";
import type { PosDeps } from "../../context";
import { openPos } from "../../index";
import { ACCOUNTING_EXPORT_CRON } from "../../jobs";
import type { PortalCall } from "../stores";

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

  /** A paid bill of 1100 with 10% tax (100), as the bill and payment services leave it. */
  async function sale(completed: Date) {
    const bill = await workers[0]!.prisma.bill.create({
      data: {
        merchant_id: merchantId,
        store_id: storeId,
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
    await workers[0]!.prisma.payment.create({
      data: {
        id: randomUUID(),
        merchant_id: merchantId,
        store_id: storeId,
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
    await sale(at(D, "12:00:00"));
    await sale(at(D, "23:59:59"));
    // The next day's sale is not D's.
    await sale(at("2031-04-11", "00:00:01"));
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

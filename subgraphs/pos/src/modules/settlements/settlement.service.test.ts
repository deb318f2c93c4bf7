import { randomInt, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AppError, type Caller, localTimeOf } from "@pos-cloud/common";
import { seedEmbeddedStorage } from "@pos-cloud/test-support/databases";
import { onPostgres, temporaryDirectory, testStorage } from "@pos-cloud/test-support/environment";
import { loggedDuring } from "@pos-cloud/test-support/log";
import { Cron } from "croner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedAcquirerControl, startEmbeddedAcquirer } from "../../../../../apps/sandbox-acquirer/src/embedded";
import type { PosDeps } from "../../context";
import { openPos } from "../../index";
import type { PortalCall } from "../stores";
import { EXCHANGE_CRON } from "./card-exchange.service";

// Settlements on the pos database alone: payments and refunds are rows as the payment and refund services leave
// them; the portal answers stores and staff codes; the clock is the test's. Business days are in Asia/Tokyo.
const merchantId = randomInt(1, 2_000_000_000);
const storeId = randomInt(1, 2_000_000_000);
const otherStoreId = randomInt(1, 2_000_000_000);
const MANAGER_CODE = "STR-ABCDEFGH-001";
const LEADER_CODE = "SLR-001-001";
const MANAGER_SECRET = "manager's own password";
/** What a terminal gives for a settlement: the manager's staff code and secret (issue 38). */
const approvedByManager = { staff_code: MANAGER_CODE, staff_pin: MANAGER_SECRET };
const staff = new Map([
  [MANAGER_CODE, "STORE_MANAGER"],
  [LEADER_CODE, "STAFF_LEADER"],
]);

/** The portal's refusal, as its subgraph answers one. */
const refusal = (code: string, message: string, details: object) => ({
  errors: [{ message, extensions: { code, details } }],
});

/** A settlement's approval as the portal gives it: a store manager, with their secret (`staff-approval.service.ts`). */
function approveSettlement({ login_id, secret }: { login_id: string; secret: string | null }) {
  const role = staff.get(login_id);
  if (!role) return refusal("invalid_request", "not staff", { field: "staff_code", constraint: "staff_of_store" });
  if (role !== "STORE_MANAGER")
    return refusal("forbidden", "below L4", { field: "staff_code", constraint: "store_manager" });
  if (secret !== MANAGER_SECRET) return refusal("unauthorized", "wrong secret", {});
  return { data: { approveSettlement: { login_id, role } } };
}

/** The portal as POS asks it: a store the caller reaches (its own store, its merchant's, anything for L0). */
const portal: PortalCall = async (query, variables, caller) => {
  if (query.includes("approveSettlement"))
    return approveSettlement(variables.input as { login_id: string; secret: string | null });
  if (query.includes("storeMember")) {
    const role = staff.get(String(variables.login_id));
    return { data: { storeMember: role ? { login_id: variables.login_id, role } : null } };
  }
  const id = Number(variables.id);
  const merchant = id === storeId || id === otherStoreId ? merchantId : undefined;
  const reaches =
    merchant !== undefined &&
    (caller.role === "SYSTEM_OP" ||
      caller.storeId === id ||
      (caller.role === "MERCHANT_ADMIN" && caller.merchantId === merchant));
  return reaches ? { data: { store: { id, merchant_id: merchant } } } : refusal("not_found", "store not found", {});
};

const user = (role: string, at: { storeId?: number } = { storeId }): Caller => ({
  type: "user",
  id: randomUUID(),
  role,
  merchantId,
  ...at,
  scopes: [],
});
const manager = user("STORE_MANAGER");
const operator: Caller = { type: "user", id: randomUUID(), role: "SYSTEM_OP", scopes: [] };
const terminal: Caller = {
  type: "device",
  id: randomUUID(),
  merchantId,
  storeId,
  scopes: ["order:create", "bill:create", "payment:create"],
};

const D = "2031-03-10";
const D1 = "2031-03-11";
/** A moment of Asia/Tokyo local time on a date: `at(D, "12:00")`. */
const at = (date: string, time: string) => new Date(`${date}T${time}+09:00`);

describe("settlements of a store's business day", () => {
  let deps: PosDeps;
  const clock = { now: at(D, "21:00:00") };
  const dir = temporaryDirectory("settlements-");
  let acquirer: Awaited<ReturnType<typeof startEmbeddedAcquirer>>;

  async function pay(method: string, amount: number, completed: Date, status = "completed") {
    return deps.prisma.payment.create({
      data: {
        id: randomUUID(),
        merchant_id: merchantId,
        store_id: storeId,
        bill_id: randomUUID(),
        amount,
        total_amount: amount,
        method_type: method,
        status,
        approval_code: method === "CREDIT_CARD" ? `A${randomInt(1000, 9999)}` : null,
        emoney_brand: method === "EMONEY" ? "transport_ic" : null,
        created_at: new Date(completed.getTime() - 60_000),
        occurred_at: new Date(completed.getTime() - 60_000),
        completed_at: status === "completed" ? completed : null,
      },
    });
  }
  /** Cash recorded offline as the payment service leaves it: it completed when it happened, it arrived later. */
  async function payOffline(amount: number, occurred: Date, received: Date) {
    return deps.prisma.payment.create({
      data: {
        id: randomUUID(),
        merchant_id: merchantId,
        store_id: otherStoreId,
        bill_id: randomUUID(),
        amount,
        total_amount: amount,
        method_type: "CASH",
        status: "completed",
        created_at: received,
        occurred_at: occurred,
        recorded_offline: true,
        completed_at: occurred,
      },
    });
  }
  async function refund(payment: { id: string; bill_id: string }, amount: number, completed: Date) {
    return deps.prisma.posRefund.create({
      data: {
        id: randomUUID(),
        merchant_id: merchantId,
        store_id: storeId,
        payment_id: payment.id,
        bill_id: payment.bill_id,
        amount,
        reason: "customer request",
        staff_code: LEADER_CODE,
        status: "succeeded",
        created_at: completed,
        completed_at: completed,
      },
    });
  }
  const failure = (work: Promise<unknown>) =>
    work.then(
      () => undefined,
      (error: unknown) => error as AppError,
    );
  const cash = (settlement: { totals: { payment_method: string }[] }, method = "CASH") =>
    settlement.totals.find((total) => total.payment_method === method);

  let card: { id: string; bill_id: string };
  let declined: { id: string };

  beforeAll(async () => {
    // Embedded: a copy of the migrated template, far quicker than migrating a new database.
    if (!onPostgres) await seedEmbeddedStorage(dir.path);
    deps = await openPos({ ...testStorage("pos"), dataDir: dir.path, portal, clock: () => clock.now });
    acquirer = await startEmbeddedAcquirer({ dataDir: dir.path, host: "127.0.0.1" });
    deps.cardExchange.configure({ url: acquirer.ftpUrl, timeoutMs: 5000 });
    // D in Tokyo is [D-1 15:00 UTC, D 15:00 UTC): the first and last millisecond count, the ones beside do not.
    await pay("CASH", 1000, at(D, "00:00:00.000"));
    card = await pay("CREDIT_CARD", 2684, at(D, "12:00:00"));
    declined = await pay("CREDIT_CARD", 1013, at(D, "13:00:00"));
    await pay("QR", 500, at(D, "23:59:59.999"));
    // E-money is counted on its own line and stays out of the card acquirer's file.
    await pay("EMONEY", 300, at(D, "16:00:00"));
    await pay("CASH", 700, new Date(at(D, "00:00:00.000").getTime() - 1));
    await pay("CASH", 900, at(D1, "00:00:00.000"));
    await pay("CREDIT_CARD", 4000, at(D, "14:00:00"), "failed");
    await refund(card, 684, at(D, "15:00:00"));
  });
  afterAll(async () => {
    await deps?.close();
    await acquirer?.close();
    dir.remove();
  });

  it("totals the day's payments and refunds per method while open", async () => {
    const settlement = await deps.settlements.create(manager, { store_id: storeId, date: D });
    expect(settlement).toMatchObject({
      store_id: storeId,
      merchant_id: merchantId,
      date: D,
      timezone: "Asia/Tokyo",
      status: "open",
      auto_close: false,
      gross_amount: 1000 + 2684 + 1013 + 500 + 300,
      refund_amount: 684,
      net_amount: 1000 + 2684 + 1013 + 500 + 300 - 684,
      payment_count: 5,
      refund_count: 1,
      carried_over_count: 0,
      created_by: `user:${manager.id}`,
      card_exchange: null,
    });
    expect(settlement.totals).toEqual([
      {
        payment_method: "CASH",
        gross_amount: 1000,
        tip_amount: 0,
        refund_amount: 0,
        net_amount: 1000,
        payment_count: 1,
        refund_count: 0,
      },
      {
        payment_method: "CREDIT_CARD",
        gross_amount: 3697,
        tip_amount: 0,
        refund_amount: 684,
        net_amount: 3013,
        payment_count: 2,
        refund_count: 1,
      },
      {
        payment_method: "EMONEY",
        gross_amount: 300,
        tip_amount: 0,
        refund_amount: 0,
        net_amount: 300,
        payment_count: 1,
        refund_count: 0,
      },
      {
        payment_method: "QR",
        gross_amount: 500,
        tip_amount: 0,
        refund_amount: 0,
        net_amount: 500,
        payment_count: 1,
        refund_count: 0,
      },
    ]);
  });

  it("refuses what it must, changing nothing", async () => {
    const before = await deps.prisma.settlement.count();
    const day = (await deps.prisma.settlement.findFirst({ where: { store_id: storeId, business_date: D } }))!;
    const again = await failure(deps.settlements.create(manager, { store_id: storeId, date: D }));
    expect(again).toMatchObject({ code: "conflict", details: { settlement_id: day.id } });
    const cases: [Caller, Record<string, unknown>, string, Record<string, unknown>][] = [
      [
        manager,
        { store_id: storeId, date: "2031-03-12" },
        "invalid_request",
        { field: "date", constraint: "not_future" },
      ],
      [manager, { store_id: storeId, date: "2031-02-30" }, "invalid_request", { field: "date" }],
      [manager, { store_id: storeId, date: D1, extra: 1 }, "invalid_request", { field: "extra" }],
      [user("STAFF_LEADER"), { store_id: storeId, date: D1 }, "forbidden", {}],
      [terminal, { date: D1 }, "invalid_request", { field: "staff_code", constraint: "required" }],
      [
        terminal,
        { date: D1, staff_code: LEADER_CODE, staff_pin: MANAGER_SECRET },
        "forbidden",
        { field: "staff_code", constraint: "store_manager" },
      ],
      [
        terminal,
        { date: D1, staff_code: MANAGER_CODE },
        "invalid_request",
        { field: "staff_pin", constraint: "required" },
      ],
      [terminal, { date: D1, staff_code: MANAGER_CODE, staff_pin: "a guess" }, "forbidden", { field: "staff_pin" }],
      [
        terminal,
        { date: D1, staff_code: "STF-NOT-HERE", staff_pin: MANAGER_SECRET },
        "invalid_request",
        { field: "staff_code" },
      ],
      [terminal, { store_id: otherStoreId, date: D1, ...approvedByManager }, "forbidden", { field: "store_id" }],
      [{ ...terminal, scopes: ["order:create"] }, { date: D1, ...approvedByManager }, "forbidden", {}],
      [user("STORE_MANAGER", { storeId: otherStoreId }), { store_id: storeId, date: D1 }, "not_found", {}],
    ];
    for (const [caller, input, code, details] of cases) {
      const error = await failure(deps.settlements.create(caller, input));
      expect(error, JSON.stringify(input)).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code, details });
    }
    expect(await failure(deps.settlements.get(user("STAFF"), day.id))).toMatchObject({ code: "forbidden" });
    expect(await failure(deps.settlements.get(user("STORE_MANAGER", { storeId: otherStoreId }), day.id))).toMatchObject(
      {
        code: "not_found",
      },
    );
    expect(await deps.prisma.settlement.count()).toBe(before);
  });

  it("closes the day for good: a later payment of that day goes to the store's next settlement", async () => {
    const day = (await deps.prisma.settlement.findFirst({ where: { store_id: storeId, business_date: D } }))!;
    const closed = await deps.settlements.close(terminal, day.id, approvedByManager);
    expect(closed).toMatchObject({
      status: "closed",
      closed_by: `device:${terminal.id}`,
      closed_staff_code: MANAGER_CODE,
      net_amount: 4813,
    });
    expect(await failure(deps.settlements.close(manager, day.id, {}))).toMatchObject({ code: "invalid_state" });

    // Late: on D, after its close. The closed day does not move.
    await pay("CASH", 300, at(D, "22:00:00"));
    expect(await deps.settlements.get(manager, day.id)).toMatchObject({ net_amount: 4813, payment_count: 5 });

    clock.now = at(D1, "21:00:00");
    const next = await deps.settlements.create(terminal, { date: D1, ...approvedByManager, auto_close: true });
    expect(next).toMatchObject({ status: "closed", auto_close: true, staff_code: MANAGER_CODE, carried_over_count: 1 });
    expect(cash(next)).toMatchObject({ gross_amount: 900 + 300, payment_count: 2 });
    expect(await deps.settlements.get(manager, day.id)).toMatchObject({ net_amount: 4813, payment_count: 5 });

    const listed = await deps.settlements.list(manager, { start_date: D, end_date: D1 });
    expect(listed.total_count).toBe(2);
    expect(listed.nodes.map((s) => s.date)).toEqual([D1, D]);
    expect((await deps.settlements.list(terminal, { status: "open" })).nodes).toEqual([]);
  });

  it("exchanges the day's card transactions with the acquirer and flags what its file does not match", async () => {
    const [outcome] = await deps.cardExchange.run(D, { storeId });
    expect(outcome).toMatchObject({ status: "mismatch", attempts: 1 });
    const upload = readFileSync(
      join(acquirer.stateDir, "files", String(merchantId), "upload", `card_transactions_${storeId}_20310310.csv`),
      "utf8",
    ).split("\r\n");
    const cardRow = await deps.prisma.payment.findUniqueOrThrow({ where: { id: card.id } });
    expect(upload).toEqual([
      "Transaction ID,Date,Time,Amount,Approval Code,Status",
      `${card.id},${D},12:00:00,2684,${cardRow.approval_code},captured`,
      expect.stringMatching(new RegExp(`^${declined.id},${D},13:00:00,1013,A\\d{4},captured$`)),
      expect.stringMatching(new RegExp(`^[0-9a-f-]{36},${D},15:00:00,684,${cardRow.approval_code},refunded$`)),
      "",
    ]);
    const day = (await deps.prisma.settlement.findFirst({ where: { store_id: storeId, business_date: D } }))!;
    const shown = await deps.settlements.get(manager, day.id);
    // The acquirer declined the 1013 payment: one transaction and 1013 fewer than the settlement's card net.
    expect(shown.card_exchange).toMatchObject({
      status: "mismatch",
      upload_count: 3,
      upload_amount: 3013,
      report: {
        merchant_id: String(merchantId),
        date: D,
        transaction_count: 2,
        gross_amount: 2000,
        fees: 86,
        net_amount: 1914,
      },
      differences: [
        { field: "transaction_count", expected: 3, actual: 2 },
        { field: "gross_amount", expected: 3013, actual: 2000 },
      ],
    });
    expect(shown.card_exchange?.report?.content).toContain(`${merchantId},${D},2,2000,86,1914`);
    const notes = await deps.notifications.list(operator, { kind: "card_settlement_mismatch", store_id: storeId });
    expect(notes.nodes[0]).toMatchObject({ settlement_id: day.id, business_date: D });
    // The scheduled run does not redo a day it exchanged.
    expect(await deps.cardExchange.run(D, { storeId })).toMatchObject([{ status: "skipped" }]);
  });

  describe("the day's card differences, resolved", () => {
    const admin = user("MERCHANT_ADMIN", {});
    const otherAdmin: Caller = { ...user("MERCHANT_ADMIN", {}), merchantId: merchantId + 1 };
    const note = "the acquirer declined the 1013 payment: refunded by hand";
    let day: { id: string };
    const exchange = () => deps.prisma.cardSettlementExchange.findUniqueOrThrow({ where: { settlement_id: day.id } });
    const resolve = (caller: Caller, input: object) =>
      failure(deps.settlements.resolveCardDifferences(caller, { settlement_id: day.id, ...input }));
    const audits = () =>
      deps.prisma.outboxEvent.findMany({
        where: { event_type: "audit.recorded", aggregate_id: `settlement:${day.id}` },
      });

    beforeAll(async () => {
      // The exchange above left D's settlement in a mismatch.
      day = await deps.prisma.settlement.findFirstOrThrow({ where: { store_id: storeId, business_date: D } });
    });

    it("refuses a bad note naming the field, a store manager, a merchant out of reach, a day without a mismatch", async () => {
      const before = await exchange();
      for (const bad of ["", "   ", "x".repeat(501), "ESC\u001b[1m"]) {
        expect(await resolve(admin, { note: bad }), JSON.stringify(bad)).toMatchObject({
          code: "invalid_request",
          details: { field: "note" },
        });
      }
      expect(await resolve(admin, {})).toMatchObject({ code: "invalid_request", details: { field: "note" } });
      expect(await resolve(manager, { note })).toMatchObject({ code: "forbidden" });
      // Out of reach: not found, as reading the settlement is.
      expect(await resolve(otherAdmin, { note })).toMatchObject({ code: "not_found" });
      expect(await failure(deps.settlements.get(otherAdmin, day.id))).toMatchObject({ code: "not_found" });
      const unknown = { settlement_id: randomUUID(), note };
      expect(await failure(deps.settlements.resolveCardDifferences(admin, unknown))).toMatchObject({
        code: "not_found",
      });
      const quiet = await deps.settlements.create(operator, { store_id: storeId, date: "2031-03-01" });
      expect(
        await failure(deps.settlements.resolveCardDifferences(admin, { settlement_id: quiet.id, note })),
      ).toMatchObject({ code: "invalid_state", details: { status: null } });
      expect(await exchange()).toEqual(before);
      expect(await audits()).toEqual([]);
    });

    it("resolves every difference of the day at once, once, and the open alerts stop counting it", async () => {
      const counted = () => deps.settlements.cardDifferenceCount(admin, storeId);
      expect(await counted()).toBe(1);
      expect(await deps.settlements.cardDifferenceCount(manager, storeId)).toBeNull();
      const shown = await deps.settlements.resolveCardDifferences(admin, { settlement_id: day.id, note: ` ${note} ` });
      expect(shown.card_exchange).toMatchObject({
        status: "mismatch",
        differences: [{ field: "transaction_count" }, { field: "gross_amount" }],
        resolved_at: clock.now,
        resolved_by: `user:${admin.id}`,
        resolution_note: note,
      });
      expect(await counted()).toBe(0);
      expect((await audits()).map((row) => row.payload)).toEqual([
        expect.objectContaining({
          event: "reconciliation.card_differences_resolved",
          user_id: admin.id,
          place: { merchant_id: merchantId, store_id: storeId },
          metadata: expect.objectContaining({ business_date: D, note }),
        }),
      ]);

      const resolved = await exchange();
      expect(await resolve(operator, { note: "again" })).toMatchObject({
        code: "invalid_state",
        details: { resolved_at: clock.now.toISOString(), resolved_by: `user:${admin.id}` },
      });
      expect(await exchange()).toEqual(resolved);
      expect(await audits()).toHaveLength(1);
    });
  });

  it("retries a refused login three times, then alerts and records a notification for operators", async () => {
    /** The retry job's pass `ms` later. */
    const retriedAfter = (ms: number) => {
      clock.now = new Date(clock.now.getTime() + ms);
      return deps.cardExchange.retryDue();
    };
    const control = embeddedAcquirerControl(dir.path);
    control.refuseNextLogins(2);
    expect(await deps.cardExchange.run(D, { storeId, again: true })).toMatchObject([
      { status: "retrying", attempts: 1 },
    ]);
    // The scheduled run leaves a day waiting for its retry to the retry job.
    expect(await deps.cardExchange.run(D, { storeId })).toMatchObject([{ status: "skipped" }]);
    expect(await retriedAfter(59_999)).toEqual([]);
    expect(await retriedAfter(1)).toMatchObject([{ status: "retrying", attempts: 2 }]);
    expect(await retriedAfter(299_999)).toEqual([]);
    expect(await retriedAfter(1)).toMatchObject([{ status: "mismatch", attempts: 3 }]);
    expect(await retriedAfter(900_000)).toEqual([]);

    control.refuseNextLogins(4);
    let outcomes: Awaited<ReturnType<typeof deps.cardExchange.run>> = [];
    const log = await loggedDuring(async () => {
      await deps.cardExchange.run(D, { storeId, again: true });
      for (const ms of [60_000, 300_000, 900_000]) outcomes = await retriedAfter(ms);
    });
    expect(outcomes).toMatchObject([{ status: "failed", attempts: 4, error: expect.stringContaining("530") }]);
    const alert = log
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .find((line) => line.alert === "card_exchange_failed");
    expect(alert).toMatchObject({ level: "error", store_id: storeId, date: D, attempts: 4 });
    expect(JSON.stringify(alert)).not.toContain(acquirer.account.password);
    const day = (await deps.prisma.settlement.findFirst({ where: { store_id: storeId, business_date: D } }))!;
    expect((await deps.settlements.get(manager, day.id)).card_exchange).toMatchObject({
      status: "failed",
      attempts: 4,
    });
    const notes = await deps.notifications.list(operator, { kind: "card_exchange_failed" });
    expect(notes.nodes.find((note) => note.settlement_id === day.id)).toMatchObject({
      store_id: storeId,
      details: { attempts: 4, last_error: expect.stringContaining("530") },
    });
    expect(await failure(deps.notifications.list(manager, {}))).toMatchObject({ code: "forbidden" });
  });

  it("leaves an exchange a stop interrupted due to the retry job at once, the attempt not counted", async () => {
    const stopped = new AbortController();
    stopped.abort();
    expect(await deps.cardExchange.run(D, { storeId, again: true, signal: stopped.signal })).toMatchObject([
      { status: "skipped", error: "stopped" },
    ]);
    expect(await deps.cardExchange.retryDue(stopped.signal)).toMatchObject([{ status: "skipped", error: "stopped" }]);
    expect(await deps.cardExchange.retryDue()).toMatchObject([{ status: "mismatch", attempts: 1 }]);
  });

  it("runs at 02:00 Asia/Tokyo for the business day before", async () => {
    const next = new Cron(EXCHANGE_CRON, { timezone: "Asia/Tokyo" }).nextRun(at(D1, "21:00:00"))!;
    expect(next.toISOString()).toBe(at("2031-03-12", "02:00:00").toISOString());
    expect(localTimeOf(next)).toBe("02:00:00");
    clock.now = next;
    // D1 is closed with no card payment: an empty upload, which the acquirer confirms.
    const outcomes = await deps.cardExchange.runScheduled(next);
    expect(outcomes.find((outcome) => outcome.store_id === storeId)).toMatchObject({ date: D1, status: "matched" });
  });

  describe("cash recorded offline, which arrives after the day it happened", () => {
    const E = "2031-04-10";
    const E1 = "2031-04-11";
    const otherManager = user("STORE_MANAGER", { storeId: otherStoreId });
    const settle = (date: string) => deps.settlements.create(otherManager, { store_id: otherStoreId, date });

    it("counts on the business day it happened while that day is open, not on the day it arrived", async () => {
      clock.now = at(E1, "09:00:00");
      await payOffline(1500, at(E, "20:00:00"), at(E1, "08:30:00"));
      const day = await settle(E);
      expect(day).toMatchObject({ gross_amount: 1500, payment_count: 1, carried_over_count: 0 });
      const closed = await deps.settlements.close(otherManager, day.id, {});
      expect(closed).toMatchObject({ status: "closed", gross_amount: 1500 });
    });

    it("goes forward to the next settlement when its day is closed, as a late payment does", async () => {
      clock.now = at(E1, "21:00:00");
      await payOffline(800, at(E, "21:00:00"), at(E1, "10:00:00"));
      const next = await settle(E1);
      expect(next).toMatchObject({ gross_amount: 800, payment_count: 1, carried_over_count: 1 });
      const closedDay = (await deps.prisma.settlement.findFirst({
        where: { store_id: otherStoreId, business_date: E },
      }))!;
      expect(await deps.settlements.get(otherManager, closedDay.id)).toMatchObject({ gross_amount: 1500 });
    });
  });
});

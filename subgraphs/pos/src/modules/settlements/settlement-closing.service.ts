import { randomUUID } from "node:crypto";
import {
  AppError,
  businessDateOf,
  type Caller,
  dayWindow,
  invalidField,
  parseInput,
  STORE_TIME_ZONE,
} from "@pos-cloud/common";
import type { PaymentsInFlight } from "../../payments-in-flight";
import type { StoreAccess, StorePlace } from "../stores";
import { settlementClose, settlementCreate } from "./settlement.inputs";
import { settlementMachine } from "./settlement.machine";
import type { PresentedSettlement } from "./settlement.presenter";
import { LOOKBACK_MS, type SettlementRepository, type SettlementRow, type Tx } from "./settlement.repository";
import { readableSettlement, settlementActor } from "./settlement-access.service";

/** Who closes a day the nightly card exchange found open (or created). */
export const SYSTEM_ACTOR = "system";

/** Opening and closing settlements: by a manager (`create`, `close`), or by the system for the card exchange. */
export function settlementClosing(
  settlements: SettlementRepository,
  access: StoreAccess,
  clock: () => Date,
  inFlight: PaymentsInFlight,
  present: (row: SettlementRow) => Promise<PresentedSettlement>,
) {
  /**
   * Closes an open settlement under its row lock; a closed one is 409, and so is a day with a payment in flight, but
   * for the system: its nightly close takes the day as it is, and a payment completed later goes forward.
   */
  async function closeLocked(tx: Tx, id: string, by: string, staffCode: string | null) {
    const locked = await settlements.lock(tx, id);
    settlementMachine.transition(locked.status, "close");
    if (by !== SYSTEM_ACTOR)
      await inFlight.requireNone(
        tx,
        {
          store_id: locked.store_id,
          from: new Date(locked.window_start.getTime() - LOOKBACK_MS),
          to: locked.window_end,
        },
        "close the settlement",
      );
    return settlements.close(tx, locked, { closed_at: clock(), closed_by: by, closed_staff_code: staffCode });
  }

  /** A new open settlement of a store's day (closed at once with `autoClose`); false when the day has one. */
  async function open(
    tx: Tx,
    store: StorePlace,
    date: string,
    autoClose: boolean,
    by: string,
    staffCode: string | null,
  ) {
    const { start, end } = dayWindow(date, STORE_TIME_ZONE);
    const id = randomUUID();
    const made = await settlements.insert(tx, {
      id,
      merchant_id: store.merchantId,
      store_id: store.storeId,
      business_date: date,
      timezone: STORE_TIME_ZONE,
      window_start: start,
      window_end: end,
      auto_close: autoClose,
      created_by: by,
      staff_code: staffCode,
      created_at: clock(),
    });
    if (made && autoClose) await closeLocked(tx, id, by, staffCode);
    return made;
  }

  return {
    /**
     * Settles a store's business day (today or before, in the store's time zone): 201 with what it counts so far per
     * method; `auto_close` closes it at once. One settlement per store and day: a second is 409 naming the first.
     */
    async create(caller: Caller, input: unknown) {
      const data = parseInput(settlementCreate, input);
      const actor = await settlementActor(access, caller, data.store_id, data, { business_date: data.date });
      if (data.date > businessDateOf(clock(), STORE_TIME_ZONE))
        throw invalidField("date", "not_future", "a business day that has not begun cannot be settled");
      const made = await settlements.transaction((tx) =>
        open(tx, actor.store, data.date, data.auto_close ?? false, actor.by, actor.staff_code),
      );
      const row = await settlements.findDay(actor.store.storeId, data.date);
      if (!made)
        throw new AppError("conflict", `the store's ${data.date} has a settlement already`, {
          field: "date",
          settlement_id: row?.id,
        });
      return present(row!);
    },

    /** Closes an open settlement: what it counts is recorded and never changes; a payment after it goes forward. */
    async close(caller: Caller, id: string, input: unknown) {
      const data = parseInput(settlementClose, input ?? {});
      const row = await readableSettlement(settlements, access, caller, id);
      const actor = await settlementActor(access, caller, row.store_id, data, {
        business_date: row.business_date,
        settlement_id: row.id,
      });
      const closed = await settlements.transaction((tx) => closeLocked(tx, row.id, actor.by, actor.staff_code));
      return present(closed);
    },

    /**
     * For the card exchange: the store's day closed, as the system. A day without a settlement gets one; an open one
     * is closed (the day is over; what comes later goes forward). Concurrent workers end with the same closed row.
     */
    async closeDay(store: StorePlace, date: string) {
      const existing = await settlements.findDay(store.storeId, date);
      if (!existing) await settlements.transaction((tx) => open(tx, store, date, true, SYSTEM_ACTOR, null));
      const row = (await settlements.findDay(store.storeId, date))!;
      if (row.status === "open")
        await settlements
          .transaction((tx) => closeLocked(tx, row.id, SYSTEM_ACTOR, null))
          .catch((error: unknown) => {
            if (!(error instanceof AppError && error.code === "invalid_state")) throw error;
          });
      return (await settlements.findDay(store.storeId, date))!;
    },
  };
}

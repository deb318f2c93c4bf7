import { type Caller, mapPage, type PageArgs, parseInput, parsePage } from "@pos-cloud/common";
import type { PaymentsInFlight } from "../../payments-in-flight";
import { givenArguments } from "../list-arguments";
import type { StoreAccess, StorePlace } from "../stores";
import type { CardExchangeRepository } from "./card-exchange.repository";
import { cardResolutions } from "./card-resolution.service";
import { settlementFilter } from "./settlement.inputs";
import { presentSettlement } from "./settlement.presenter";
import type { SettlementRepository, SettlementRow } from "./settlement.repository";
import { readableSettlement, requireManagerTier } from "./settlement-access.service";
import { settlementClosing } from "./settlement-closing.service";
import { settlementDays } from "./settlement-days.service";

export type SettlementService = ReturnType<typeof settlementService>;

/**
 * A store's settlements, one per business day: read here; opened and closed by `settlementClosing`; a day's counts
 * read by `settlementDays`; its card exchange's differences resolved by `cardResolutions`.
 */
export function settlementService(
  settlements: SettlementRepository,
  exchanges: CardExchangeRepository,
  access: StoreAccess,
  clock: () => Date,
  inFlight: PaymentsInFlight,
) {
  /** Settlements with their totals: counted at close, or what they would count now while open. */
  async function present(rows: SettlementRow[]) {
    const ids = rows.map((row) => row.id);
    const [closed, cards] = await Promise.all([
      settlements.countedAtClose(rows.filter((row) => row.status === "closed").map((row) => row.id)),
      exchanges.findMany(ids),
    ]);
    return Promise.all(
      rows.map(async (row) =>
        presentSettlement(
          row,
          row.status === "closed" ? (closed.get(row.id) ?? []) : await settlements.countedNow(row),
          cards.find((card) => card.settlement_id === row.id),
        ),
      ),
    );
  }
  const presentOne = async (row: SettlementRow) => (await present([row]))[0]!;
  const closing = settlementClosing(settlements, access, clock, inFlight, presentOne);

  return {
    get: async (caller: Caller, id: string) => presentOne(await readableSettlement(settlements, access, caller, id)),

    async list(
      caller: Caller,
      args: {
        store_id?: number | null;
        start_date?: string | null;
        end_date?: string | null;
        status?: string | null;
      } & PageArgs,
    ) {
      if (caller.type !== "device") requireManagerTier(caller);
      const { store_id, limit, offset, ...filter } = args;
      const parsed = parseInput(settlementFilter, givenArguments(filter));
      const page = parsePage({ limit, offset });
      const scope = await access.listScope(caller, store_id ?? undefined);
      const rows = await settlements.list(scope, parsed, page);
      const presented = await present(rows.nodes);
      return mapPage(rows, (row) => presented.find((p) => p.id === row.id)!);
    },

    present: presentOne,
    ...closing,
    ...settlementDays(settlements, access, clock, presentOne),
    ...cardResolutions(settlements, exchanges, access, clock, presentOne),

    /**
     * For the accounting export: the store's day closed as the system (`closeDay`), its totals as the settlement
     * presents them, and each payment and refund it recorded.
     */
    async closedDay(store: StorePlace, date: string) {
      const row = await closing.closeDay(store, date);
      return { settlement: await presentOne(row), entries: await settlements.recordedEntries(row.id) };
    },
  };
}

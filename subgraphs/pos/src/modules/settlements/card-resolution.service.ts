import {
  AppError,
  alreadyResolved,
  type Caller,
  ownMerchantScope,
  parseEntityId,
  parseInput,
  requireOwnMerchantAdmin,
  resolutionBy,
} from "@pos-cloud/common";
import { findReachable, type StoreAccess } from "../stores";
import type { CardExchangeRepository, CardExchangeRow } from "./card-exchange.repository";
import { cardDifferencesResolve } from "./settlement.inputs";
import type { PresentedSettlement } from "./settlement.presenter";
import type { SettlementRepository, SettlementRow } from "./settlement.repository";

/** Why an exchange has nothing to resolve: it did not end in a mismatch, or its mismatch was resolved already. */
function unresolvable(exchange: CardExchangeRow | null) {
  if (exchange?.status !== "mismatch")
    return new AppError(
      "invalid_state",
      `the settlement's card exchange is ${exchange?.status ?? "not made"}: it has no difference to resolve`,
      { status: exchange?.status ?? null },
    );
  return alreadyResolved("card settlement's differences", exchange);
}

/**
 * A store's day's card settlement differences closed by a person and counted while open (docs/decisions/pos.md,
 * "Card settlement differences are resolved per exchange"): the merchant's own admin and system operators, who see
 * them in the open alerts.
 */
export function cardResolutions(
  settlements: SettlementRepository,
  exchanges: CardExchangeRepository,
  access: StoreAccess,
  clock: () => Date,
  present: (row: SettlementRow) => Promise<PresentedSettlement>,
) {
  return {
    /**
     * Closes every difference of a settlement's card exchange at once (they are one comparison of one acquirer
     * file) with what was done; a settlement out of reach is not found, as when read.
     */
    async resolveCardDifferences(caller: Caller, input: unknown) {
      const { settlement_id, note } = parseInput(cardDifferencesResolve, input);
      const settlement = await findReachable(access, caller, "settlement", settlement_id, settlements.find);
      requireOwnMerchantAdmin(
        caller,
        settlement.merchant_id,
        "card settlement differences are resolved by a system operator or the merchant's admin",
      );
      const exchange = await exchanges.find(settlement.id);
      if (exchange?.status !== "mismatch" || exchange.resolved_at) throw unresolvable(exchange);
      const resolution = resolutionBy(caller, note, clock());
      const resolved = await exchanges.resolve(settlement.id, resolution, {
        event: "reconciliation.card_differences_resolved",
        actor: caller,
        target: { type: "settlement", id: settlement.id },
        place: { merchant_id: settlement.merchant_id, store_id: settlement.store_id },
        metadata: { business_date: settlement.business_date, differences: exchange.differences, note },
      });
      // Another resolution (or a new exchange) came between the read and the update.
      if (!resolved) throw unresolvable(await exchanges.find(settlement.id));
      return present(settlement);
    },

    /**
     * For the console's open alerts: the days whose acquirer file differed from the card payments and that no one
     * resolved, of the merchants the caller sees (of one store when named); null for a caller who sees none.
     */
    async cardDifferenceCount(caller: Caller, storeId: number | null | undefined) {
      const scope = ownMerchantScope(caller);
      if (!scope) return null;
      const store = storeId === null || storeId === undefined ? {} : { store_id: parseEntityId(storeId, "store_id") };
      return exchanges.openMismatchCount({ ...scope, ...store });
    },
  };
}

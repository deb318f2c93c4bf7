import {
  addDays,
  alreadyResolved,
  businessDateOf,
  type Caller,
  dayWindow,
  differencesReach,
  forbidden,
  invalidField,
  isCalendarDate,
  logger,
  notFound,
  parseEntityId,
  parseInput,
  type ReachableStore,
  requireCaller,
  requireTier,
  resolutionBy,
  roles,
  STORE_TIME_ZONE,
} from "@pos-cloud/common";
import type { Job } from "@pos-cloud/common/jobs";
import { metrics } from "@pos-cloud/common/metrics";
import { Counter } from "prom-client";
import type { MerchantSyncService } from "../partners";
import type { ProviderCredentialStore, ProviderDirectory } from "../providers";
import {
  differenceFields,
  differencesOf,
  type LedgerPayment,
  type ProviderDifference,
  providerTook,
} from "./provider-differences.rules";
import { qrDifferenceResolve } from "./reconciliation.inputs";
import type { ReconciliationRepository } from "./reconciliation.repository";

export type ReconciliationService = ReturnType<typeof reconciliationService>;

/** Daily at 03:00 Asia/Tokyo, after the card exchange (02:00), for the business day that ended three hours before. */
export const RECONCILIATION_CRON = "0 3 * * *";

/** Each difference once, when it is first recorded: what the alert rule `ProviderDifferences` watches. */
export const providerDifferencesFound = new Counter({
  name: "pgw_provider_reconciliation_differences_total",
  help: "Differences between a QR provider's view and the ledger, recorded once each, by provider and field.",
  labelNames: ["provider", "field"] as const,
  registers: [metrics],
});

/** One store's reconciliation with one provider: matched, mismatch (see differences) or failed (see error). */
export interface ReconciliationOutcome {
  provider: string;
  store_id: number;
  merchant_id: number;
  date: string;
  status: "matched" | "mismatch" | "failed";
  /** Every difference found by this run; `recorded` counts those no earlier run had found. */
  differences: ProviderDifference[];
  recorded: number;
  error?: string;
}

const byStore = (payments: LedgerPayment[]) => {
  const stores = new Map<number, LedgerPayment[]>();
  for (const payment of payments) stores.set(payment.store_id, [...(stores.get(payment.store_id) ?? []), payment]);
  return stores;
};

/**
 * The merchants whose differences a person sees in the open alerts, and may resolve (`differencesReach`: merchant
 * admins and above); undefined for everyone else (docs/decisions/console.md, "Undeliverable messages and QR
 * differences in the open alerts").
 */
async function alertScope(
  caller: Caller,
  merchants: Pick<MerchantSyncService, "merchantIdsOfPsp">,
): Promise<{ merchant_id?: { in: number[] } } | undefined> {
  const reach = differencesReach(caller);
  if (reach?.level === "platform") return {};
  if (reach?.level === "psp") return { merchant_id: { in: await merchants.merchantIdsOfPsp(reach.pspId) } };
  return reach?.level === "merchant" ? { merchant_id: { in: [reach.merchantId] } } : undefined;
}

/**
 * The QR differences recorded and not resolved over the stores the caller reaches (of one store when named), for the
 * console's open alerts; null for a role below merchant admin.
 */
function differenceCounter(
  repository: ReconciliationRepository,
  merchants: Pick<MerchantSyncService, "merchantIdsOfPsp">,
) {
  return async (caller: Caller, storeId: number | null | undefined) => {
    const store = storeId === null || storeId === undefined ? {} : { store_id: parseEntityId(storeId, "store_id") };
    const scope = await alertScope(caller, merchants);
    return scope ? repository.count({ ...scope, ...store, resolved_at: null }) : null;
  };
}

/**
 * Closes a difference with what was done about it, for those who see it in the open alerts (docs/decisions/
 * payments.md, "A QR difference is resolved with a note"); final: a second resolution is refused and names the first.
 * A difference out of reach is refused as reading its store's is.
 */
function differenceResolver(
  repository: ReconciliationRepository,
  merchants: Pick<MerchantSyncService, "merchantIdsOfPsp">,
  clock: () => Date,
) {
  return async (caller: Caller, input: unknown) => {
    requireCaller(caller);
    const { id, note } = parseInput(qrDifferenceResolve, input);
    const scope = await alertScope(caller, merchants);
    if (!scope) throw forbidden("QR differences are resolved by merchant admins and above");
    const difference = await repository.find(id);
    if (!difference) throw notFound("QR difference");
    if (scope.merchant_id && !scope.merchant_id.in.includes(difference.merchant_id)) throw forbidden();
    if (difference.resolved_at) throw alreadyResolved("QR difference", difference);
    const resolution = resolutionBy(caller, note, clock());
    const { provider, business_date, provider_transaction_id, field, expected, actual } = difference;
    const resolved = await repository.resolve(id, resolution, {
      event: "reconciliation.qr_difference_resolved",
      actor: caller,
      target: { type: "provider_difference", id },
      place: { merchant_id: difference.merchant_id, store_id: difference.store_id },
      metadata: { provider, business_date, provider_transaction_id, field, expected, actual, note },
    });
    // Another resolution came between the read and the update.
    if (!resolved) throw alreadyResolved("QR difference", (await repository.find(id))!);
    return resolved;
  };
}

/** What people do with recorded differences: count them in the open alerts, resolve them. */
const differenceActions = (repository: ReconciliationRepository, deps: ReconciliationDeps) => ({
  differenceCount: differenceCounter(repository, deps.merchants),
  resolve: differenceResolver(repository, deps.merchants, deps.clock),
});

/** What the reconciliation works with: the providers and their credentials, the clock, the merchants of a PSP. */
export interface ReconciliationDeps {
  providers: Pick<ProviderDirectory, "get" | "codes">;
  credentials: ProviderCredentialStore;
  clock: () => Date;
  merchants: Pick<MerchantSyncService, "merchantIdsOfPsp">;
}

/**
 * The daily reconciliation of QR sales with each provider (docs/decisions/payments.md, "QR sales reconciled with
 * each provider"): per store, the provider's view of the day's payments (amounts, statuses, refunds) against the
 * ledger. Differences are recorded once each, logged with `alert: provider_reconciliation_mismatch` and counted in
 * `pgw_provider_reconciliation_differences_total`, as the card exchange flags its own; nothing moves money.
 */
export function reconciliationService(repository: ReconciliationRepository, deps: ReconciliationDeps) {
  const { providers, credentials, clock } = deps;

  async function reconcileStore(
    code: string,
    date: string,
    window: { start: Date; end: Date },
    ledger: LedgerPayment[],
  ) {
    const { store_id, merchant_id } = ledger[0]!;
    const provider = providers.get(code);
    const known = ledger.map((payment) => payment.provider_transaction_id);
    const range = { from: window.start, to: window.end, known };
    const view = await provider.listTransactions(range, await credentials.forStore(store_id, code));
    const mine = new Set(known);
    const others = view.filter((p) => !mine.has(p.provider_transaction_id) && providerTook(p.status));
    const made = await repository.knownTransactions(others.map((payment) => payment.provider_transaction_id));
    const strangers = others.filter((payment) => !made.has(payment.provider_transaction_id));
    const differences = differencesOf(ledger, view, strangers);
    let recorded = 0;
    for (const difference of differences) {
      const place = { provider: code, business_date: date, merchant_id, store_id };
      if (!(await repository.record({ ...place, ...difference }, clock()))) continue;
      recorded++;
      providerDifferencesFound.inc({ provider: code, field: difference.field });
      logger.warn(`the ${code} provider's view of store ${store_id} on ${date} differs from the ledger`, {
        alert: "provider_reconciliation_mismatch",
        ...place,
        ...difference,
      });
    }
    const status = differences.length === 0 ? ("matched" as const) : ("mismatch" as const);
    return { provider: code, store_id, merchant_id, date, status, differences, recorded };
  }

  const service = {
    /**
     * Reconciles a business day (today at the latest) of one provider, store after store: every store with QR
     * payments of that provider that day. One store's failure (its credentials, the provider's answer) is logged
     * and does not keep the others from theirs.
     */
    async run(code: string, date: string): Promise<ReconciliationOutcome[]> {
      if (!isCalendarDate(date)) throw invalidField("date", "date", "date must be written YYYY-MM-DD");
      if (date > businessDateOf(clock(), STORE_TIME_ZONE))
        throw invalidField("date", "not_future", "a business day that has not begun cannot be reconciled");
      providers.get(code);
      const window = dayWindow(date, STORE_TIME_ZONE);
      const stores = byStore(await repository.dayPayments(code, window.start, window.end));
      const outcomes: ReconciliationOutcome[] = [];
      for (const ledger of stores.values()) {
        const outcome = await reconcileStore(code, date, window, ledger).catch((error: unknown) => {
          const { store_id, merchant_id } = ledger[0]!;
          const reason = error instanceof Error ? error.message : String(error);
          logger.error(`the ${code} reconciliation of store ${store_id} on ${date} failed`, {
            alert: "provider_reconciliation_failed",
            provider: code,
            store_id,
            merchant_id,
            date,
            error: reason,
          });
          const failed = { status: "failed" as const, differences: [], recorded: 0, error: reason };
          return { provider: code, store_id, merchant_id, date, ...failed };
        });
        outcomes.push(outcome);
      }
      return outcomes;
    },

    /** The scheduled run at `at`: the business day before it. */
    runScheduled: (code: string, at: Date) => service.run(code, addDays(businessDateOf(at, STORE_TIME_ZONE), -1)),

    /** A job of the registry per configured provider, daily at 03:00 Asia/Tokyo. */
    jobs(): Job[] {
      // The alert's increase() needs a 0 before the first difference.
      for (const code of providers.codes())
        for (const field of differenceFields) providerDifferencesFound.inc({ provider: code, field }, 0);
      return providers.codes().map((code) => ({
        name: `provider-reconciliation-${code}`,
        schedule: { cron: RECONCILIATION_CRON, timezone: STORE_TIME_ZONE },
        alert: "provider_reconciliation_failed",
        run: () => service.runScheduled(code, clock()),
      }));
    },

    /**
     * A store's recorded differences of a business day (today by default), for store managers and above who reach
     * the store (the reference was checked against the caller).
     */
    differencesOf(caller: Caller, store: ReachableStore, date: string | null | undefined) {
      requireTier(caller, roles.STORE_MANAGER);
      const day = date ?? businessDateOf(clock(), STORE_TIME_ZONE);
      if (!isCalendarDate(day)) throw invalidField("date", "date", "date must be written YYYY-MM-DD");
      return repository.listForStore(store.id, day);
    },

    ...differenceActions(repository, deps),
  };
  return service;
}

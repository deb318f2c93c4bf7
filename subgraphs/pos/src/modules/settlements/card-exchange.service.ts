import {
  AppError,
  addDays,
  businessDateOf,
  invalidField,
  isCalendarDate,
  logger,
  STORE_TIME_ZONE,
} from "@pos-cloud/common";
import type { Job } from "@pos-cloud/common/jobs";
import { retryPolicies } from "@pos-cloud/common/tasks";
import type { NotificationService } from "../notifications";
import type { CardExchangeRepository } from "./card-exchange.repository";
import type { SettlementService } from "./settlement.service";
import {
  type ExchangeOutcome,
  exchangeStore,
  messageOf,
  retryExchange,
  type StoreExchange,
} from "./store-exchange.service";

export type CardExchangeService = ReturnType<typeof cardExchangeService>;

export interface CardExchangeSettings {
  /** The acquirer's FTP server with the merchant account: `ftp://user:password@host:port/`; unset: not configured. */
  url?: string;
  /** Waits before each retry (for tests: shorter ones); the `card_exchange` policy's when not given. */
  retryDelaysMs?: number[];
  /** Per FTP command and transfer. */
  timeoutMs: number;
}

/** The signal of a run no job stops (an operator's, a test's). */
const NEVER: AbortSignal = new AbortController().signal;

/** How often due retries (1, 5 and 15 minutes after a failure) are looked for. */
const RETRY_PASS_MS = 30_000;

/** Longer than an attempt (its FTP commands and transfers): a process that dies mid-way leaves it due again then. */
const RETRY_LEASE_MS = 10 * 60_000;

/** The spec's schedule: daily at 02:00, UTC+9, for the business day that ended two hours before. */
export const EXCHANGE_CRON = "0 2 * * *";

/**
 * The daily card settlement exchange (the spec's File exchange) of each store: its day closed, the card
 * transactions uploaded to the acquirer over FTP, the acquirer's settlement file downloaded and recorded against the
 * settlement, differences flagged. A failed transfer is retried three times (with growing waits) by the retry job;
 * then an alert is logged and an operator's notification recorded.
 */
export function cardExchangeService(
  settlements: SettlementService,
  exchanges: CardExchangeRepository,
  notifications: NotificationService,
  mail: StoreExchange["mail"],
  clock: () => Date,
) {
  let settings: CardExchangeSettings = { timeoutMs: 30_000 };

  /** What a store's exchange works with, under the settings as they are when it starts. */
  const storeExchange = (signal: AbortSignal): StoreExchange => ({
    settlements,
    exchanges,
    notifications,
    mail,
    clock,
    endpoint: { url: settings.url!, timeoutMs: settings.timeoutMs },
    policy: settings.retryDelaysMs ? { delaysMs: settings.retryDelaysMs, thenMs: "dead" } : retryPolicies.card_exchange,
    signal,
  });

  const service = {
    /** Sets the acquirer (and, for tests, shorter waits); unset fields keep their value. */
    configure(changes: Partial<CardExchangeSettings>) {
      settings = { ...settings, ...changes };
    },

    get configured() {
      return settings.url !== undefined;
    },

    /**
     * Exchanges a business day (today at the latest) for every store with card activity or a settlement that day,
     * or for one store, one after another, in a first attempt each; a failed one is the retry job's. `again` redoes
     * stores already exchanged (an operator's run); a store another worker holds is skipped either way. `signal`
     * (a job's) ends an open transfer at once.
     */
    async run(
      date: string,
      options: { storeId?: number; again?: boolean; signal?: AbortSignal } = {},
    ): Promise<ExchangeOutcome[]> {
      if (!isCalendarDate(date)) throw invalidField("date", "date", "date must be written YYYY-MM-DD");
      if (date > businessDateOf(clock(), STORE_TIME_ZONE))
        throw invalidField("date", "not_future", "a business day that has not begun cannot be exchanged");
      if (!settings.url) throw new AppError("service_unavailable", "no card acquirer is configured (ACQUIRER_FTP_URL)");
      const stores = (await settlements.storesOfDay(date)).filter(
        (store) => options.storeId === undefined || store.storeId === options.storeId,
      );
      const outcomes: ExchangeOutcome[] = [];
      for (const store of stores) {
        // One store's trouble (its database rows) does not keep the others from their exchange.
        const outcome = await exchangeStore(
          storeExchange(options.signal ?? NEVER),
          store,
          date,
          options.again ?? false,
        ).catch((error: unknown) => {
          const place = { store_id: store.storeId, merchant_id: store.merchantId, date };
          logger.error("the card settlement exchange of a store failed", {
            alert: "card_exchange_failed",
            ...place,
            error: messageOf(error),
          });
          return { ...place, settlement_id: "", status: "failed" as const, attempts: 0, error: messageOf(error) };
        });
        outcomes.push(outcome);
      }
      return outcomes;
    },

    /** The scheduled run at `at`: the business day before it. */
    runScheduled: (at: Date, signal?: AbortSignal) =>
      service.run(addDays(businessDateOf(at, STORE_TIME_ZONE), -1), { signal }),

    /** Attempts every due retry (and any a crashed process held past its lease) again; returns their outcomes. */
    async retryDue(signal: AbortSignal = NEVER): Promise<ExchangeOutcome[]> {
      if (!settings.url) return [];
      const now = clock();
      const due = await exchanges.claimDue(now, new Date(now.getTime() + RETRY_LEASE_MS));
      const outcomes: ExchangeOutcome[] = [];
      for (const exchange of due) outcomes.push(await retryExchange(storeExchange(signal), exchange));
      return outcomes;
    },

    /**
     * The jobs of the registry: the exchange daily at 02:00 Asia/Tokyo and its retries; stopping them ends open
     * transfers at once.
     */
    jobs(): Job[] {
      return [
        {
          name: "card-settlement-exchange",
          schedule: { cron: EXCHANGE_CRON, timezone: STORE_TIME_ZONE },
          alert: "card_exchange_failed",
          run: (signal) => service.runScheduled(clock(), signal),
        },
        {
          name: "card-settlement-exchange-retries",
          schedule: { everyMs: RETRY_PASS_MS },
          // Retries a stop or a crash left due are made at start.
          runAtStart: true,
          alert: "card_exchange_failed",
          run: (signal) => service.retryDue(signal),
        },
      ];
    },
  };
  return service;
}

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
import type { NotificationService } from "../notifications";
import type { CardExchangeRepository } from "./card-exchange.repository";
import type { SettlementService } from "./settlement.service";
import { type ExchangeOutcome, exchangeStore, messageOf, type StoreExchange } from "./store-exchange.service";

export type CardExchangeService = ReturnType<typeof cardExchangeService>;

export interface CardExchangeSettings {
  /** The acquirer's FTP server with the merchant account: `ftp://user:password@host:port/`; unset: not configured. */
  url?: string;
  /** Waits before each retry: as many retries as entries (the spec's three) after the first attempt. */
  retryDelaysMs: number[];
  /** Per FTP command and transfer. */
  timeoutMs: number;
}

/** 1 minute, 5 minutes, 15 minutes: an acquirer's short outage passes, and the run ends well before the shops open. */
export const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 900_000];

/** The spec's schedule: daily at 02:00, UTC+9, for the business day that ended two hours before. */
export const EXCHANGE_CRON = "0 2 * * *";

/**
 * The daily card settlement exchange (the spec's File exchange) of each store: its day closed, the card
 * transactions uploaded to the acquirer over FTP, the acquirer's settlement file downloaded and recorded against the
 * settlement, differences flagged. A failed transfer is retried three times (with growing waits); then an alert is
 * logged and an operator's notification recorded.
 */
export function cardExchangeService(
  settlements: SettlementService,
  exchanges: CardExchangeRepository,
  notifications: NotificationService,
  mail: StoreExchange["mail"],
  clock: () => Date,
) {
  let settings: CardExchangeSettings = { retryDelaysMs: DEFAULT_RETRY_DELAYS_MS, timeoutMs: 30_000 };
  const stopping = new AbortController();

  /** A wait that ends early when the process stops. */
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        stopping.signal.removeEventListener("abort", stop);
        resolve();
      }, ms);
      stopping.signal.addEventListener("abort", stop, { once: true });
    });

  /** What a store's exchange works with, under the settings as they are when it starts. */
  const storeExchange = (): StoreExchange => ({
    settlements,
    exchanges,
    notifications,
    mail,
    clock,
    endpoint: { url: settings.url!, timeoutMs: settings.timeoutMs },
    retryDelaysMs: settings.retryDelaysMs,
    signal: stopping.signal,
    wait,
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
     * or for one store, one after another. `again` redoes stores already exchanged (an operator's run); a store
     * another worker holds is skipped either way.
     */
    async run(date: string, options: { storeId?: number; again?: boolean } = {}): Promise<ExchangeOutcome[]> {
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
        const outcome = await exchangeStore(storeExchange(), store, date, options.again ?? false).catch(
          (error: unknown) => {
            const place = { store_id: store.storeId, merchant_id: store.merchantId, date };
            logger.error("the card settlement exchange of a store failed", {
              alert: "card_exchange_failed",
              ...place,
              error: messageOf(error),
            });
            return { ...place, settlement_id: "", status: "failed" as const, attempts: 0, error: messageOf(error) };
          },
        );
        outcomes.push(outcome);
      }
      return outcomes;
    },

    /** The scheduled run at `at`: the business day before it. */
    runScheduled: (at: Date) => service.run(addDays(businessDateOf(at, STORE_TIME_ZONE), -1)),

    /**
     * The job of the registry: daily at 02:00 Asia/Tokyo; stopping it ends waits and open transfers at once.
     */
    job(): Job {
      return {
        name: "card-settlement-exchange",
        schedule: { cron: EXCHANGE_CRON, timezone: STORE_TIME_ZONE },
        alert: "card_exchange_failed",
        run(signal) {
          signal.addEventListener("abort", () => stopping.abort(), { once: true });
          return service.runScheduled(clock());
        },
      };
    },
  };
  return service;
}

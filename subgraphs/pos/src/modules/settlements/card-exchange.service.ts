import { AppError, invalidField, logger } from "@pos-cloud/common";
import type { Job } from "@pos-cloud/common/jobs";
import type { MessageOutbox } from "@pos-cloud/common/messages";
import type { NotificationService } from "../notifications/notification.service";
import type { StorePlace } from "../stores/store-access.service";
import { type AcquirerEndpoint, exchangeWithAcquirer, shownUrl } from "./acquirer.client";
import { addDays, businessDateOf, isCalendarDate, STORE_TIME_ZONE } from "./business-day";
import type { CardExchangeRepository } from "./card-exchange.repository";
import { cardTransactionsCsv, differencesOf, exchangePaths, expectedOf, parseAcquirerReport } from "./card-files";
import type { SettlementService } from "./settlement.service";

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

/** How long one worker holds a settlement's exchange: longer than every attempt and wait together. */
const CLAIM_MS = 60 * 60_000;

export interface ExchangeOutcome {
  store_id: number;
  merchant_id: number;
  date: string;
  settlement_id: string;
  /** matched, mismatch, failed; skipped when another worker holds it or (scheduled runs) it was exchanged already. */
  status: "matched" | "mismatch" | "failed" | "skipped";
  attempts: number;
  differences?: { field: string; expected: number; actual: number }[];
  error?: string;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

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
  mail: { messages: Pick<MessageOutbox, "send">; contactOf: (storeId: number) => Promise<string | null> },
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

  type ExchangePlace = { store_id: number; merchant_id: number; date: string; settlement_id: string };

  async function exchangeStore(store: StorePlace, date: string, again: boolean): Promise<ExchangeOutcome> {
    const settlement = await settlements.closeDay(store, date);
    const place = { store_id: store.storeId, merchant_id: store.merchantId, date, settlement_id: settlement.id };
    const about = {
      store_id: store.storeId,
      merchant_id: store.merchantId,
      settlement_id: settlement.id,
      business_date: date,
    };
    const now = clock();
    const claimed = await exchanges.claim(settlement.id, now, new Date(now.getTime() + CLAIM_MS), again);
    if (!claimed) return { ...place, status: "skipped", attempts: 0 };
    const entries = await exchanges.cardEntries(settlement.id);
    const expected = expectedOf(entries);
    const paths = exchangePaths(store.merchantId, store.storeId, date);
    const content = cardTransactionsCsv(entries, settlement.timezone);
    const endpoint: AcquirerEndpoint = { url: settings.url!, timeoutMs: settings.timeoutMs };
    const tries = settings.retryDelaysMs.length + 1;
    let error = "";
    for (let attempt = 1; attempt <= tries && !stopping.signal.aborted; attempt++) {
      try {
        const text = await exchangeWithAcquirer(endpoint, { ...paths, content }, stopping.signal);
        const report = parseAcquirerReport(text, { merchant_id: store.merchantId, date });
        const differences = differencesOf(expected, report);
        const status = differences.length === 0 ? "matched" : "mismatch";
        const at = clock();
        await exchanges.update(settlement.id, {
          status,
          attempts: attempt,
          claimed_until: at,
          last_error: null,
          upload_file: paths.upload,
          upload_count: expected.transaction_count,
          upload_amount: expected.gross_amount,
          uploaded_at: at,
          report_file: paths.report,
          report_content: text,
          report_merchant_id: report.merchant_id,
          report_date: report.date,
          report_transaction_count: report.transaction_count,
          report_gross_amount: report.gross_amount,
          report_fees: report.fees,
          report_net_amount: report.net_amount,
          received_at: at,
          differences,
        });
        if (status === "mismatch") {
          const message = `the acquirer's settlement of store ${store.storeId} on ${date} differs from the day's card payments`;
          logger.warn(message, { alert: "card_settlement_mismatch", ...place, differences });
          await notifications.record({ kind: "card_settlement_mismatch", ...about, message, details: { differences } });
        }
        return { ...place, status, attempts: attempt, differences };
      } catch (failure) {
        error = messageOf(failure);
        await exchanges.update(settlement.id, { attempts: attempt, last_error: error });
        logger.warn("card settlement exchange attempt failed", {
          ...place,
          attempt,
          error,
          acquirer: shownUrl(endpoint.url),
        });
        const pause = settings.retryDelaysMs[attempt - 1];
        if (pause !== undefined) await wait(pause);
      }
    }
    if (stopping.signal.aborted) {
      // Stopped mid-way: another worker (or the next start) may take it at once.
      await exchanges.update(settlement.id, { claimed_until: clock() });
      return { ...place, status: "skipped", attempts: 0, error: "stopped" };
    }
    return giveUp(place, tries, error, endpoint);
  }

  /** Every attempt failed: the exchange is failed, with an alert and a notification for the store. */
  async function giveUp(place: ExchangePlace, attempts: number, error: string, endpoint: AcquirerEndpoint) {
    await exchanges.update(place.settlement_id, { status: "failed", claimed_until: clock() });
    const message = `the card settlement exchange of store ${place.store_id} on ${place.date} failed ${attempts} times`;
    logger.error(message, {
      alert: "card_exchange_failed",
      ...place,
      attempts,
      error,
      acquirer: shownUrl(endpoint.url),
    });
    const { date: business_date, ...store } = place;
    await notifications.record({
      kind: "card_exchange_failed",
      ...store,
      business_date,
      message,
      details: { attempts, last_error: error },
    });
    await mailFailure({ storeId: place.store_id, merchantId: place.merchant_id }, place.date, message, error);
    return { ...place, status: "failed" as const, attempts, error };
  }

  /** The spec's e-mail on a persistent failure, to the store's contact (its own address, else its merchant's). */
  async function mailFailure(store: StorePlace, date: string, message: string, error: string) {
    const place = { store_id: store.storeId, merchant_id: store.merchantId, date };
    try {
      const to = await mail.contactOf(store.storeId);
      if (!to) {
        logger.warn("the store has no contact e-mail: the exchange's failure was not mailed", {
          alert: "card_exchange_failed_unmailed",
          ...place,
        });
        return;
      }
      const text = [
        `${message}.`,
        `The acquirer's last answer: ${error}`,
        "",
        "The day's card transactions are kept; an operator runs the exchange again once the acquirer answers",
        `(npm run settlement-exchange -- --date ${date} --store ${store.storeId}).`,
      ].join("\n");
      await mail.messages.send(
        { channel: "email", to, subject: `Card settlement exchange failed: store ${store.storeId}, ${date}`, text },
        { kind: "card_exchange_failed" },
      );
    } catch (failure) {
      logger.warn("the exchange's failure could not be mailed", {
        alert: "card_exchange_failed_unmailed",
        ...place,
        error: messageOf(failure),
      });
    }
  }

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
        const outcome = await exchangeStore(store, date, options.again ?? false).catch((error: unknown) => {
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

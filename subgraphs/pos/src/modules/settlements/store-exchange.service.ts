import { logger } from "@pos-cloud/common";
import type { MessageOutbox } from "@pos-cloud/common/messages";
import { countOutcome, nextAttempt, type RetryPolicy } from "@pos-cloud/common/tasks";
import type { NotificationService } from "../notifications";
import type { StorePlace } from "../stores";
import { type AcquirerEndpoint, exchangeWithAcquirer, shownUrl } from "./acquirer.client";
import type { CardExchangeRepository, DueExchange } from "./card-exchange.repository";
import {
  cardTransactionsCsv,
  differencesOf,
  exchangePaths,
  expectedOf,
  parseAcquirerReport,
} from "./card-files.format";
import type { SettlementService } from "./settlement.service";

/** How long one worker holds a settlement's exchange: longer than an attempt. */
const CLAIM_MS = 60 * 60_000;

export interface ExchangeOutcome {
  store_id: number;
  merchant_id: number;
  date: string;
  settlement_id: string;
  /**
   * matched, mismatch, failed; retrying when the attempt failed and the retry job attempts it again; skipped when
   * another worker holds it, (scheduled runs) it was exchanged already, or the process stopped.
   */
  status: "matched" | "mismatch" | "failed" | "retrying" | "skipped";
  attempts: number;
  differences?: { field: string; expected: number; actual: number }[];
  error?: string;
}

/** What one store's exchange works with: its settlement, the exchange rows, the acquirer, and where alerts go. */
export interface StoreExchange {
  settlements: SettlementService;
  exchanges: CardExchangeRepository;
  notifications: NotificationService;
  mail: { messages: Pick<MessageOutbox, "send">; contactOf: (storeId: number) => Promise<string | null> };
  clock: () => Date;
  endpoint: AcquirerEndpoint;
  /** When a failed attempt is made again (`card_exchange`), and after how many it is failed. */
  policy: RetryPolicy;
  /** Aborted when the process stops: no attempt starts, an open one ends at once, and either is made again. */
  signal: AbortSignal;
}

type ExchangePlace = { store_id: number; merchant_id: number; date: string; settlement_id: string };

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A notification's place: the store, its merchant, the settlement and its business day. */
const aboutOf = ({ date: business_date, ...store }: ExchangePlace) => ({ ...store, business_date });

/**
 * A store's day exchanged with the acquirer: the day closed, the card transactions uploaded, the acquirer's report
 * downloaded, in a first attempt; skipped when another worker holds it.
 */
export async function exchangeStore(
  deps: StoreExchange,
  store: StorePlace,
  date: string,
  again: boolean,
): Promise<ExchangeOutcome> {
  const settlement = await deps.settlements.closeDay(store, date);
  const place = { store_id: store.storeId, merchant_id: store.merchantId, date, settlement_id: settlement.id };
  const now = deps.clock();
  const claimed = await deps.exchanges.claim(settlement.id, now, new Date(now.getTime() + CLAIM_MS), again);
  if (!claimed) return { ...place, status: "skipped", attempts: 0 };
  return attemptExchange(deps, place, settlement.timezone, 1);
}

/** A failed exchange attempted again, claimed by the retry job. */
export const retryExchange = (deps: StoreExchange, due: DueExchange) =>
  attemptExchange(
    deps,
    { store_id: due.store_id, merchant_id: due.merchant_id, date: due.business_date, settlement_id: due.settlement_id },
    due.timezone,
    due.attempts + 1,
  );

/** One attempt at the claimed exchange: its report recorded, or its retry made due by the policy, or given up. */
async function attemptExchange(
  deps: StoreExchange,
  place: ExchangePlace,
  timezone: string,
  attempt: number,
): Promise<ExchangeOutcome> {
  const { exchanges, clock, endpoint, signal } = deps;
  const entries = await exchanges.cardEntries(place.settlement_id);
  const expected = expectedOf(entries);
  const paths = exchangePaths(place.merchant_id, place.store_id, place.date);
  const content = cardTransactionsCsv(entries, timezone);
  try {
    signal.throwIfAborted();
    const text = await exchangeWithAcquirer(endpoint, { ...paths, content }, signal);
    const outcome = await recordReport(deps, place, { attempt, paths, expected, text });
    countOutcome("card_exchange", "done");
    return outcome;
  } catch (failure) {
    const now = clock();
    if (signal.aborted) {
      // Stopped mid-way: the attempt does not count, and the retry job (of the next start or another worker)
      // takes it at once.
      await exchanges.update(place.settlement_id, { claimed_until: now, next_attempt_at: now });
      return { ...place, status: "skipped", attempts: 0, error: "stopped" };
    }
    const error = messageOf(failure);
    logger.warn("card settlement exchange attempt failed", {
      ...place,
      attempt,
      error,
      acquirer: shownUrl(endpoint.url),
    });
    const next = nextAttempt(deps.policy, attempt, now);
    if (!next) {
      countOutcome("card_exchange", "dead");
      return giveUp(deps, place, attempt, error);
    }
    await exchanges.update(place.settlement_id, {
      attempts: attempt,
      last_error: error,
      claimed_until: now,
      next_attempt_at: next.at,
    });
    countOutcome("card_exchange", "retried");
    return { ...place, status: "retrying", attempts: attempt, error };
  }
}

/** The acquirer's report recorded against the settlement; differences from the day's card payments are flagged. */
async function recordReport(
  deps: StoreExchange,
  place: ExchangePlace,
  exchange: {
    attempt: number;
    paths: ReturnType<typeof exchangePaths>;
    expected: ReturnType<typeof expectedOf>;
    text: string;
  },
): Promise<ExchangeOutcome> {
  const { attempt, paths, expected, text } = exchange;
  const report = parseAcquirerReport(text, { merchant_id: place.merchant_id, date: place.date });
  const differences = differencesOf(expected, report);
  const status = differences.length === 0 ? "matched" : "mismatch";
  const at = deps.clock();
  await deps.exchanges.update(place.settlement_id, {
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
    next_attempt_at: null,
  });
  if (status === "mismatch") {
    const message = `the acquirer's settlement of store ${place.store_id} on ${place.date} differs from the day's card payments`;
    logger.warn(message, { alert: "card_settlement_mismatch", ...place, differences });
    await deps.notifications.record({
      kind: "card_settlement_mismatch",
      ...aboutOf(place),
      message,
      details: { differences },
    });
  }
  return { ...place, status, attempts: attempt, differences };
}

/** Every attempt failed: the exchange is failed, with an alert and a notification for the store. */
async function giveUp(deps: StoreExchange, place: ExchangePlace, attempts: number, error: string) {
  await deps.exchanges.update(place.settlement_id, {
    status: "failed",
    attempts,
    last_error: error,
    claimed_until: deps.clock(),
    next_attempt_at: null,
  });
  const message = `the card settlement exchange of store ${place.store_id} on ${place.date} failed ${attempts} times`;
  logger.error(message, {
    alert: "card_exchange_failed",
    ...place,
    attempts,
    error,
    acquirer: shownUrl(deps.endpoint.url),
  });
  await deps.notifications.record({
    kind: "card_exchange_failed",
    ...aboutOf(place),
    message,
    details: { attempts, last_error: error },
  });
  await mailFailure(deps.mail, { storeId: place.store_id, merchantId: place.merchant_id }, place.date, message, error);
  return { ...place, status: "failed" as const, attempts, error };
}

/** The spec's e-mail on a persistent failure, to the store's contact (its own address, else its merchant's). */
async function mailFailure(
  mail: StoreExchange["mail"],
  store: StorePlace,
  date: string,
  message: string,
  error: string,
) {
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

import { randomUUID } from "node:crypto";
import { logger, type SecretBox } from "@pos-cloud/common";
import { metrics } from "@pos-cloud/common/metrics";
import { countOutcome, nextAttempt, retryPolicies } from "@pos-cloud/common/tasks";
import { Counter } from "prom-client";
import type { ReceiptService } from "../receipts";
import type { SettlementService } from "../settlements";
import type { StorePlace } from "../stores";
import type { AccountingExportRepository, AccountingExportRow, DeliveryRow } from "./accounting-export.repository";
import {
  type ExportFormat,
  type ExportTransaction,
  renderSettlementFile,
  type SettlementExport,
  settlementFileName,
} from "./settlement-file.format";
import { type SftpTarget, uploadBySftp } from "./sftp.client";

/** Each attempt at a settlement file: `delivered`, `retried` (failed, tried again later) or `failed` (no more). */
export const accountingExportDeliveries = new Counter({
  name: "pgw_accounting_export_delivery_total",
  help: "Attempts at delivering accounting export files by SFTP, by format and outcome (delivered, retried, failed).",
  labelNames: ["format", "status"] as const,
  registers: [metrics],
});

/** What the deliveries work with. */
export interface DeliveryDeps {
  exports: AccountingExportRepository;
  settlements: Pick<SettlementService, "closedDay">;
  receipts: Pick<ReceiptService, "taxOfPayment">;
  box: SecretBox | undefined;
  clock: () => Date;
  settings: DeliverySettings;
}

export interface DeliverySettings {
  /** Per connection and transfer. */
  timeoutMs: number;
}

export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = { timeoutMs: 30_000 };

/** How long a process making an attempt holds its row: longer than a connection and transfer may take. */
const LEASE_MS = 5 * 60_000;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The store's closed day as the spec's export: its settlement's totals, each payment and refund with its tax. */
async function settlementExport(deps: DeliveryDeps, store: StorePlace, date: string) {
  const { settlement, entries } = await deps.settlements.closedDay(store, date);
  const taxes = new Map<string, ReturnType<ReceiptService["taxOfPayment"]>>();
  const taxOf = (paymentId: string) => {
    if (!taxes.has(paymentId)) taxes.set(paymentId, deps.receipts.taxOfPayment(paymentId));
    return taxes.get(paymentId)!;
  };
  const transactions: ExportTransaction[] = [];
  for (const entry of entries) {
    const paid = await taxOf(entry.payment_id);
    const refund = entry.kind === "refund";
    // A refund gives back the tax in the part of its payment it returns, rounded down like the payment's own.
    const tax = refund ? Math.floor((entry.amount * paid.tax_amount) / paid.amount) : paid.tax_amount;
    transactions.push({
      transaction_id: entry.source_id,
      kind: entry.kind,
      timestamp: entry.occurred_at.toISOString(),
      amount: refund ? -entry.amount : entry.amount,
      tax_amount: refund ? -tax : tax,
      payment_method: entry.method_type,
      receipt_number: paid.receipt_number,
    });
  }
  const file: SettlementExport = {
    export_type: "daily_settlement",
    date,
    merchant_id: store.merchantId,
    store_id: store.storeId,
    transactions,
    totals: {
      gross_revenue: settlement.gross_amount,
      tax_collected: transactions.reduce((total, t) => total + t.tax_amount, 0),
      net_revenue: settlement.net_amount,
    },
  };
  return { file, settlement_id: settlement.id };
}

/** The file of a store's day in the merchant's format, as a delivery row's fields. */
export async function deliveryFile(deps: DeliveryDeps, store: StorePlace, date: string, format: ExportFormat) {
  const { file, settlement_id } = await settlementExport(deps, store, date);
  return {
    settlement_id,
    file_name: settlementFileName(store.merchantId, store.storeId, date, format),
    format,
    content: renderSettlementFile(file, format),
  };
}

/** A store's day queued for delivery, due now; false when the day has a delivery already. */
export async function queueDelivery(deps: DeliveryDeps, store: StorePlace, date: string, format: ExportFormat) {
  return deps.exports.insertDelivery({
    id: randomUUID(),
    merchant_id: store.merchantId,
    store_id: store.storeId,
    business_date: date,
    ...(await deliveryFile(deps, store, date, format)),
    next_attempt_at: deps.clock(),
  });
}

/**
 * The key the server shows must be the one pinned on the settings; settings without one pin the first key a
 * connection shows (trust on first use, as OpenSSH's known_hosts).
 */
async function checkHostKey(deps: DeliveryDeps, settings: AccountingExportRow, shown: string) {
  const pinned = settings.host_key_fingerprint ?? (await deps.exports.trustHostKey(settings, shown, deps.clock()));
  if (pinned === null) throw new Error("the accounting export's settings changed during the attempt; nothing was sent");
  if (pinned !== shown)
    throw new Error(
      `the SFTP server's host key did not match: the settings pin ${pinned}, the server showed ${shown}; nothing was sent`,
    );
}

function targetOf(deps: DeliveryDeps, settings: AccountingExportRow): SftpTarget {
  if (!deps.box) throw new Error("this process has no master key: the SFTP credentials cannot be opened");
  const secret = deps.box.open(settings.secret);
  return {
    host: settings.host,
    port: settings.port,
    username: settings.username,
    path: settings.path,
    ...(settings.auth_method === "password" ? { password: secret } : { privateKey: secret }),
    verifyHostKey: (fingerprint) => checkHostKey(deps, settings, fingerprint),
  };
}

/** One attempt at a delivery this process holds; never throws: a failure is the row's. */
export async function attemptDelivery(deps: DeliveryDeps, row: DeliveryRow): Promise<boolean> {
  const { exports, clock, settings } = deps;
  const about = { delivery_id: row.id, merchant_id: row.merchant_id, store_id: row.store_id, date: row.business_date };
  try {
    const merchant = await exports.findSettings(row.merchant_id);
    if (!merchant) throw new Error("the merchant's accounting export is no longer configured");
    await uploadBySftp(targetOf(deps, merchant), row.file_name, row.content, settings.timeoutMs);
    await exports.markDelivered(row.id, clock());
    accountingExportDeliveries.inc({ format: row.format, status: "delivered" });
    countOutcome("accounting_export", "done");
    return true;
  } catch (failure) {
    const error = messageOf(failure).slice(0, 1000);
    const attempts = row.attempts + 1;
    const next = nextAttempt(retryPolicies.accounting_export, attempts, clock());
    if (next) {
      await exports.markRetry(row.id, error, next.at);
      accountingExportDeliveries.inc({ format: row.format, status: "retried" });
      countOutcome("accounting_export", "retried");
      logger.warn("an accounting export file could not be delivered; trying again later", {
        ...about,
        attempts,
        error,
      });
      return false;
    }
    const audit = {
      event: "accounting_export.failed",
      actor: null,
      target: { type: "accounting_export_delivery", id: row.id },
      place: { merchant_id: row.merchant_id, store_id: row.store_id },
      success: false,
      metadata: { file_name: row.file_name, business_date: row.business_date, attempts, last_error: error },
    };
    await exports.markFailed(row.id, error, audit, clock());
    accountingExportDeliveries.inc({ format: row.format, status: "failed" });
    countOutcome("accounting_export", "dead");
    logger.error("an accounting export file could not be delivered; no more attempts", {
      alert: "accounting_export_failed",
      ...about,
      attempts,
      error,
    });
    return false;
  }
}

/** Attempts every due delivery (and any a crashed process held past its lease); returns how many. */
export async function deliverDue(deps: DeliveryDeps): Promise<number> {
  let attempted = 0;
  for (;;) {
    const now = deps.clock();
    const rows = await deps.exports.claimDue(now, new Date(now.getTime() + LEASE_MS));
    for (const row of rows) await attemptDelivery(deps, row);
    attempted += rows.length;
    if (rows.length === 0) return attempted;
  }
}

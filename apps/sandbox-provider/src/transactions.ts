import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { ulid } from "ulid";
import { sandboxErrors } from "./errors";

/** The sandbox's own vocabulary; the gateway's adapter maps it onto the platform's normalized statuses. */
export type SandboxStatus = "pending" | "processing" | "paid" | "declined" | "cancelled" | "expired" | "refunded";
export type DeclineCode = "card_declined" | "insufficient_funds";
export type QrMode = "mpm" | "cpm";
export type SandboxEventType =
  | "payment.processing"
  | "payment.succeeded"
  | "payment.failed"
  | "payment.expired"
  | "payment.refunded";

export interface SandboxRefund {
  refund_id: string;
  amount: number;
  /** Kept with the refund, so a retry after a restart still finds it. */
  idempotency_key: string | null;
  created_at: string;
}

export interface SandboxTransaction {
  transaction_id: string;
  merchant_id: string;
  reference: string;
  mode: QrMode;
  amount: number;
  currency: string;
  status: SandboxStatus;
  decline_code: DeclineCode | null;
  refunded_amount: number;
  refunds: SandboxRefund[];
  notify_url: string | null;
  /** The merchant's key for the create: the same key returns this transaction instead of making another. */
  idempotency_key?: string | null;
  created_at: string;
  expires_at: string;
  /** When a paid transaction's outcome is decided: the processing delay after the customer paid. */
  settles_at: string | null;
  updated_at: string;
}

export interface CreateInput {
  amount: number;
  currency: string;
  reference: string;
  mode: QrMode;
  notify_url: string | null;
  /** Overrides the sandbox's default QR lifetime, e.g. to end with the gateway's intent. */
  expires_in_seconds?: number;
}

export interface TransactionOptions {
  now: () => number;
  processingDelayMs: number;
  expiresInSeconds: number;
  /** A file that keeps transactions across restarts (`openJournal`); memory only when absent. */
  file?: string;
  /** Called after every change that a merchant would be notified of. */
  onEvent(transaction: SandboxTransaction, type: SandboxEventType): void;
}

/** Test amounts, as card networks' sandboxes do: the last two digits choose the outcome. */
export function outcomeOf(amount: number): DeclineCode | null {
  if (amount % 100 === 13) return "card_declined";
  if (amount % 100 === 14) return "insufficient_funds";
  return null;
}

const isOpen = (transaction: SandboxTransaction) =>
  transaction.status === "pending" || transaction.status === "processing";

const MAX_TIMER_MS = 2 ** 31 - 1;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The transactions, kept in the journal when there is one. Time-driven moves (settlement after the processing delay,
 * expiry) are applied lazily against the injected clock on every `find`, and a timer wakes the ledger when the next
 * one is due so notifications go out without anyone asking.
 */
function transactionLedger(options: TransactionOptions) {
  const journal = options.file ? openJournal(options.file) : undefined;
  const transactions = new Map<string, SandboxTransaction>(journal?.transactions.map((t) => [t.transaction_id, t]));
  /** Transactions that time can still move (pending, processing): the only ones a wake-up needs to look at. */
  const open = new Set([...transactions.values()].filter(isOpen));
  let timer: NodeJS.Timeout | undefined;

  function change(transaction: SandboxTransaction, patch: Partial<SandboxTransaction>, event?: SandboxEventType) {
    Object.assign(transaction, patch, { updated_at: iso(options.now()) });
    if (!isOpen(transaction)) open.delete(transaction);
    journal?.append(transaction);
    if (event) options.onEvent(transaction, event);
  }

  function advance() {
    const now = options.now();
    for (const transaction of [...open]) {
      if (transaction.status === "processing" && Date.parse(transaction.settles_at!) <= now) settle(transaction);
      else if (transaction.status === "pending" && Date.parse(transaction.expires_at) <= now)
        change(transaction, { status: "expired" }, "payment.expired");
    }
    wakeAtNextDue();
  }

  function settle(transaction: SandboxTransaction) {
    const decline = outcomeOf(transaction.amount);
    if (decline) change(transaction, { status: "declined", decline_code: decline }, "payment.failed");
    else change(transaction, { status: "paid" }, "payment.succeeded");
  }

  function wakeAtNextDue() {
    clearTimeout(timer);
    let next = Number.POSITIVE_INFINITY;
    for (const t of open) next = Math.min(next, Date.parse(t.status === "processing" ? t.settles_at! : t.expires_at));
    if (next === Number.POSITIVE_INFINITY) return;
    const wait = Math.min(Math.max(0, next - options.now()), MAX_TIMER_MS);
    timer = setTimeout(advance, wait);
    timer.unref();
  }

  advance();
  return {
    change,
    advance,
    wakeAtNextDue,
    find(merchantId: string | undefined, id: string): SandboxTransaction {
      advance();
      const transaction = transactions.get(id);
      if (!transaction || (merchantId !== undefined && transaction.merchant_id !== merchantId))
        throw sandboxErrors.notFound();
      return transaction;
    },
    findByKey: (merchantId: string, idempotencyKey: string) =>
      [...transactions.values()].find((t) => t.merchant_id === merchantId && t.idempotency_key === idempotencyKey),
    findRefund(merchantId: string, idempotencyKey: string) {
      for (const transaction of transactions.values()) {
        if (transaction.merchant_id !== merchantId) continue;
        const refund = transaction.refunds.find((r) => r.idempotency_key === idempotencyKey);
        if (refund) return { transaction, refund };
      }
      return undefined;
    },
    /** A merchant's transactions created in [fromMs, toMs), as time has moved them, oldest first. */
    list(merchantId: string, fromMs: number, toMs: number) {
      advance();
      return [...transactions.values()].filter((t) => {
        const created = Date.parse(t.created_at);
        return t.merchant_id === merchantId && created >= fromMs && created < toMs;
      });
    },
    add(transaction: SandboxTransaction) {
      transactions.set(transaction.transaction_id, transaction);
      open.add(transaction);
      journal?.append(transaction);
      wakeAtNextDue();
    },
    close() {
      clearTimeout(timer);
      journal?.close();
    },
  };
}

/** A pending transaction made now (ms), open for `lifetime` seconds. */
function newTransaction(
  merchantId: string,
  input: CreateInput,
  idempotencyKey: string | undefined,
  now: number,
  lifetime: number,
): SandboxTransaction {
  return {
    transaction_id: `txn_${ulid()}`,
    merchant_id: merchantId,
    reference: input.reference,
    mode: input.mode,
    amount: input.amount,
    currency: input.currency,
    notify_url: input.notify_url,
    idempotency_key: idempotencyKey ?? null,
    status: "pending",
    decline_code: null,
    refunded_amount: 0,
    refunds: [],
    created_at: iso(now),
    expires_at: iso(now + lifetime * 1000),
    settles_at: null,
    updated_at: iso(now),
  };
}

type Ledger = ReturnType<typeof transactionLedger>;
type Override = { status?: "paid"; refund_amount?: number };

/**
 * The provider's record changed behind the merchant's back, with no notification: a test's way to make the sandbox
 * disagree with the gateway's ledger (a payment it says was made, a refund only it knows).
 */
function override(ledger: Ledger, now: number, id: string, patch: Override): SandboxTransaction {
  const transaction = ledger.find(undefined, id);
  const left = transaction.amount - transaction.refunded_amount;
  if ((patch.refund_amount ?? 0) > left) throw sandboxErrors.refundExceedsAmount(left);
  const refunds = patch.refund_amount
    ? [
        ...transaction.refunds,
        { refund_id: `rfd_${ulid()}`, amount: patch.refund_amount, idempotency_key: null, created_at: iso(now) },
      ]
    : transaction.refunds;
  const refunded = transaction.refunded_amount + (patch.refund_amount ?? 0);
  const status = patch.status ?? transaction.status;
  ledger.change(transaction, {
    status: status === "paid" && refunded === transaction.amount ? "refunded" : status,
    refunds,
    refunded_amount: refunded,
  });
  return transaction;
}

/** The sandbox's transactions and their rules: what a merchant and a customer may do with one, and when. */
export function transactionBook(options: TransactionOptions) {
  const ledger = transactionLedger(options);
  return {
    ...bookRules(ledger, options),
    list: ledger.list,
    override: (id: string, patch: Override) => override(ledger, options.now(), id, patch),
  };
}

/** What a merchant and a customer may do with a transaction. */
function bookRules(ledger: Ledger, options: TransactionOptions) {
  const { find, change } = ledger;

  return {
    /** A repeated idempotency key returns the transaction it made the first time (a retried create is safe). */
    create(merchantId: string, input: CreateInput, idempotencyKey?: string): SandboxTransaction {
      const earlier = idempotencyKey ? ledger.findByKey(merchantId, idempotencyKey) : undefined;
      if (earlier) {
        if (
          earlier.amount !== input.amount ||
          earlier.currency !== input.currency ||
          earlier.reference !== input.reference
        )
          throw sandboxErrors.invalidState("the idempotency key was used for another payment");
        return find(merchantId, earlier.transaction_id);
      }
      const lifetime = input.expires_in_seconds ?? options.expiresInSeconds;
      const transaction = newTransaction(merchantId, input, idempotencyKey, options.now(), lifetime);
      ledger.add(transaction);
      return transaction;
    },

    get: (merchantId: string | undefined, id: string) => find(merchantId, id),

    /** The transaction a merchant created with this idempotency key, as time has moved it; none when there is none. */
    findByKey(merchantId: string, idempotencyKey: string): SandboxTransaction | undefined {
      const earlier = ledger.findByKey(merchantId, idempotencyKey);
      return earlier && find(merchantId, earlier.transaction_id);
    },

    /** The refund a merchant made with this idempotency key, with its transaction. */
    findRefund: (merchantId: string, idempotencyKey: string) => ledger.findRefund(merchantId, idempotencyKey),

    /** The customer approves the payment in their app: the outcome follows after the processing delay. */
    pay(id: string): SandboxTransaction {
      const transaction = find(undefined, id);
      if (transaction.status !== "pending")
        throw sandboxErrors.invalidState(`the transaction is ${transaction.status}`);
      // Settled at once, the outcome is the only news; otherwise the merchant hears first that the customer approved.
      change(
        transaction,
        { status: "processing", settles_at: iso(options.now() + options.processingDelayMs) },
        options.processingDelayMs > 0 ? "payment.processing" : undefined,
      );
      ledger.advance();
      return transaction;
    },

    cancel(merchantId: string, id: string): SandboxTransaction {
      const transaction = find(merchantId, id);
      if (transaction.status === "cancelled") return transaction;
      if (transaction.status !== "pending")
        throw sandboxErrors.invalidState(`the transaction is ${transaction.status}`);
      change(transaction, { status: "cancelled" });
      ledger.wakeAtNextDue();
      return transaction;
    },

    /** Partial refunds add up to at most the amount; a repeated idempotency key returns the first refund. */
    refund(merchantId: string, id: string, amount: number, idempotencyKey?: string) {
      const transaction = find(merchantId, id);
      const earlier = idempotencyKey
        ? transaction.refunds.find((refund) => refund.idempotency_key === idempotencyKey)
        : undefined;
      if (earlier && earlier.amount !== amount)
        throw sandboxErrors.invalidState("the idempotency key was used for a refund of another amount");
      if (earlier) return { transaction, refund: earlier };
      if (transaction.status !== "paid") throw sandboxErrors.invalidState(`the transaction is ${transaction.status}`);
      const refundable = transaction.amount - transaction.refunded_amount;
      if (amount > refundable) throw sandboxErrors.refundExceedsAmount(refundable);
      const refund: SandboxRefund = {
        refund_id: `rfd_${ulid()}`,
        amount,
        idempotency_key: idempotencyKey ?? null,
        created_at: iso(options.now()),
      };
      const refunded = transaction.refunded_amount + amount;
      change(
        transaction,
        {
          refunded_amount: refunded,
          refunds: [...transaction.refunds, refund],
          status: refunded === transaction.amount ? "refunded" : "paid",
        },
        "payment.refunded",
      );
      return { transaction, refund };
    },

    close: ledger.close,
  };
}

export type TransactionBook = ReturnType<typeof transactionBook>;

/**
 * The transactions file as a journal: each change appends the transaction as it now stands, one JSON line, so a
 * webhook's path writes one line instead of the whole book; the last line of a transaction wins. Opening it compacts
 * the file to one line per transaction (written aside, then renamed), so it grows only until the next start. A line
 * cut short by a crash mid-append is the last one, and is skipped: its change was never acknowledged whole.
 */
function openJournal(file: string) {
  const latest = new Map<string, SandboxTransaction>();
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  // The earlier form of the file: the whole book as one JSON array.
  if (text.startsWith("[")) for (const t of JSON.parse(text) as SandboxTransaction[]) latest.set(t.transaction_id, t);
  else {
    const lines = text.split("\n").filter((line) => line !== "");
    for (const [n, line] of lines.entries()) {
      const cutShort = n === lines.length - 1 && !text.endsWith("\n");
      if (cutShort) continue;
      const transaction = JSON.parse(line) as SandboxTransaction;
      latest.set(transaction.transaction_id, transaction);
    }
  }
  const transactions = [...latest.values()];
  const line = (transaction: SandboxTransaction) => `${JSON.stringify(transaction)}\n`;
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, transactions.map(line).join(""), { mode: 0o600 });
  renameSync(temporary, file);
  const fd = openSync(file, "a");
  return {
    transactions,
    append: (transaction: SandboxTransaction) => void writeSync(fd, line(transaction)),
    close: () => closeSync(fd),
  };
}

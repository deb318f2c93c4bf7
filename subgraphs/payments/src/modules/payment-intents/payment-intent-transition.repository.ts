import { type PaymentIntentEvent, type PaymentIntentEventType, paymentIntentMachine } from "@pos-cloud/common";
import type { PaymentIntent, Prisma } from "../../generated/prisma/client";
import { appendLedgerEntry, type LedgerEntry, ledgerEntryForTransition } from "../ledger/transaction.repository";
import { appendIntentEvent } from "../outbox/outbox.repository";

/*
 * The intent's only status writer, inside the caller's transaction: a confirm, a refund, a provider's outcome and
 * the intent's own moves all change an intent here, as its machine says, with its event and ledger row.
 */

/** What a status change writes besides the intent: its event, and a ledger row unless `ledger` says otherwise. */
async function recordChange(
  tx: Prisma.TransactionClient,
  event: PaymentIntentEventType,
  intent: PaymentIntent,
  occurred_at: Date,
  ledger: LedgerEntry | null | undefined,
) {
  await appendIntentEvent(tx, event, intent, occurred_at);
  const entry = ledger === undefined ? ledgerEntryForTransition(event, intent) : ledger;
  if (entry) await appendLedgerEntry(tx, intent, entry, occurred_at);
}

/** What a move writes on the intent besides the status the machine gives it. */
export type IntentChange = Omit<Prisma.PaymentIntentUncheckedUpdateManyInput, "status">;

export interface TransitionOptions {
  /** The states the update is conditional on; by default every state `event` leaves (the machine's table). */
  from?: readonly string[];
  /** Replaces the ledger row the move would write (null: none). */
  ledger?: LedgerEntry | null;
}

/**
 * Moves an intent by `event` inside the caller's transaction, to the state the machine gives, with its event and
 * ledger row. The update is conditional on the current status, so of two racing transitions only one happens; null
 * when it lost.
 */
export async function transitionWithin(
  tx: Prisma.TransactionClient,
  id: string,
  event: PaymentIntentEvent,
  change: IntentChange,
  occurred_at: Date,
  options: TransitionOptions = {},
): Promise<PaymentIntent | null> {
  const move = paymentIntentMachine.target(event);
  // Only a waiting intent can still be captured: every move out of waiting leaves nothing capturable.
  const capturable = move.to === "requires_action" || move.to === "processing" ? {} : { amount_capturable: 0 };
  const [intent] = await tx.paymentIntent.updateManyAndReturn({
    where: { id, status: { in: [...(options.from ?? paymentIntentMachine.fromStates(event))] } },
    data: { ...capturable, ...change, status: move.to, updated_at: occurred_at },
  });
  if (!intent) return null;
  await recordChange(tx, move.emits as PaymentIntentEventType, intent, occurred_at, options.ledger);
  return intent;
}

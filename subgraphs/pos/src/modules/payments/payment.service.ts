import { createHash, randomUUID } from "node:crypto";
import {
  AppError,
  type Caller,
  invalidField,
  isUuid,
  logger,
  mapPage,
  notFound,
  parseInput,
  paymentIntentTerminalEvents,
  type ReachableStore,
  requireDevice,
} from "@pos-cloud/common";
import type { BusEvent, MessageBus } from "@pos-cloud/common/messaging";
import type { Prisma } from "../../generated/prisma/client";
import type { BillService, PaymentToApply } from "../bills/bill.service";
import type { CustomerService } from "../customers/customer.service";
import { type ListArguments, parseListArguments } from "../list-arguments";
import type { StoreAccess } from "../stores/store-access.service";
import type { GatewayClient, GatewayIntent } from "./gateway.client";
import { cardResult, type PaymentCreate, paymentCreate, paymentFilter } from "./payment.inputs";
import { paymentMachine } from "./payment.machine";
import type { PaymentRepository, PaymentRow, Tx } from "./payment.repository";
import { auditPayment } from "./payment-audit";

export type PaymentService = ReturnType<typeof paymentService>;
type Bill = Awaited<ReturnType<BillService["get"]>>;

/** The device token scope that lets a terminal take payments. */
export const PAYMENT_SCOPE = "payment:create";

const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;
/** A card or QR payment still without its intent this long after it was taken was interrupted (see recovery). */
export const STALE_AFTER_MS = 2 * 60 * 1000;
/** At most this many interrupted payments per recovery pass. */
const RECOVERY_BATCH = 50;

/** How the gateway records each POS method (the spec's method table). */
const gatewayMethod = {
  CASH: { payment_method_types: ["cash"], processing_mode: "manual" },
  CREDIT_CARD: { payment_method_types: ["credit_card"], processing_mode: "external" },
  QR: { payment_method_types: ["qr_mpm"], processing_mode: "pgw_processed" },
} as const;

/** A refund the gateway made, as its payment takes it: who asked for it (null: unknown) and who approved it. */
export interface RefundMade {
  id: string;
  payment_id: string;
  amount: number;
  reason: string;
  staff_code: string;
  actor: Caller | null;
}

/** A payment as clients see it: the method as one object, the gateway intent as transaction_id too. */
export function presentPayment(row: PaymentRow) {
  return {
    ...row,
    transaction_id: row.payment_intent_id,
    payment_method: { type: row.method_type, provider: row.provider },
  };
}

export type PresentedPayment = ReturnType<typeof presentPayment>;

/** The same parameters give the same fingerprint, whatever order a client wrote them in. */
export const paymentFingerprint = (data: PaymentCreate) =>
  createHash("sha256")
    .update(
      JSON.stringify([
        data.bill_id,
        data.split_id ?? null,
        data.amount,
        data.payment_method.type,
        data.payment_method.provider ?? null,
        // Only when given: keys claimed before the field existed keep their fingerprint.
        ...(data.payment_provider_method_id === undefined ? [] : [data.payment_provider_method_id]),
        data.cash_received ?? null,
      ]),
    )
    .digest("hex");

export function paymentService(
  payments: PaymentRepository,
  bills: BillService,
  access: StoreAccess,
  gateway: GatewayClient,
  clock: () => Date,
  customers: Pick<CustomerService, "recordPayment" | "recordRefund">,
  /** Numbers the receipt of a payment, in the transaction that completes it (the receipts module). */
  receipts: { issue(tx: Tx, paymentId: string): Promise<unknown> },
) {
  /** Money applied to its bill in the payment's transaction, and to the totals of the bill's customer. */
  async function applyToBill(tx: Tx, payment: PaymentToApply) {
    const bill = await bills.applyPayment(tx, payment);
    await customers.recordPayment(tx, bill, payment.amount);
  }

  async function readable(caller: Caller, id: string): Promise<PaymentRow> {
    const payment = isUuid(id) ? await payments.find(id) : null;
    if (!payment) throw notFound("payment");
    await access.requireRow(caller, payment, "payment");
    return payment;
  }

  /**
   * Refuses, under the bill's payment lock, an amount above what remains once the payments in flight (card and QR
   * not yet completed) are counted, so two payments cannot both be promised the same money.
   */
  async function requireAvailable(tx: Tx, bill: Bill, data: PaymentCreate) {
    const split = data.split_id ? bill.splits.find((part) => part.id === data.split_id) : undefined;
    if (data.split_id && !split) throw invalidField("split_id", "split_of_bill", "not a split of this bill");
    const remaining = split ? split.remaining_amount : bill.remaining_amount;
    const available = remaining - (await payments.reserved(tx, bill.id, data.split_id ?? null));
    if (data.amount > available)
      throw invalidField("amount", "remaining_amount", `at most ${Math.max(0, available)} remains to pay`);
  }

  /**
   * Claims an Idempotency-Key of a store (24 hours) for a request with this fingerprint, or answers the first
   * response it holds; the same key with other parameters, or while the first request runs, is
   * `idempotency_conflict`. Null when there is no key. Once claimed, `payment_id` is the payment the key stands for:
   * a released key's first one, else the one given.
   */
  async function claimKey(
    store_id: number,
    key: string | null | undefined,
    hash: string,
    payment_id: string | null = null,
  ) {
    if (key === null || key === undefined) return null;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH)
      throw invalidField("Idempotency-Key", "length", `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`);
    const now = clock();
    const expires = new Date(now.getTime() + KEY_RETENTION_MS);
    const held = await payments.claimKey(store_id, key, hash, payment_id, now, expires);
    if (held.claimed) return { replayed: false as const, payment_id: held.payment_id };
    if (held.request_hash !== hash)
      throw new AppError("idempotency_conflict", "this Idempotency-Key was used for a different request");
    if (held.response === null)
      throw new AppError("idempotency_conflict", "a request with this Idempotency-Key is still being processed");
    return { replayed: true as const, response: held.response };
  }

  /** The gateway intent of a payment, from its row alone: a recovery sends the very body the payment first sent. */
  const intentBody = (payment: Pick<PaymentRow, "id" | "bill_id" | "store_id" | "amount" | "method_type">) => ({
    amount: payment.amount,
    currency: "JPY",
    ...gatewayMethod[payment.method_type as keyof typeof gatewayMethod],
    merchant_ref_id: `pos-${payment.id}`,
    merchant_store_id: String(payment.store_id),
    order_id: payment.bill_id,
    description: `POS payment ${payment.id}`,
  });

  /**
   * Cash: the money is applied, the gateway records it (manual mode, created succeeded) and the payment completes, in
   * one transaction: a refusal changes nothing, and the gateway is asked last, under a key that finds the same
   * intent again.
   */
  async function payCash(tx: Tx, id: string, caller: Caller, bill: Bill, data: PaymentCreate, cash_received: number) {
    await payments.lockBillPayments(tx, bill.id);
    await requireAvailable(tx, await bills.payable(tx, bill.id), data);
    await applyToBill(tx, { bill_id: bill.id, split_id: data.split_id, amount: data.amount });
    const intent = await gateway.createIntent(intentBody(rowOf(id, caller, bill, data)), `pos-payment-${id}`);
    const row = await payments.create(tx, {
      ...rowOf(id, caller, bill, data),
      // Cash is confirmed by the staff member recording it: it completes as it is created.
      status: paymentMachine.transition("pending", "complete"),
      payment_intent_id: intent.id,
      cash_received,
      change_amount: cash_received - data.amount,
      completed_at: clock(),
    });
    await auditPayment(tx, "payment.created", caller, row, clock());
    await auditPayment(tx, "payment.completed", caller, row, clock());
    await receipts.issue(tx, row.id);
    return row;
  }

  const rowOf = (id: string, caller: Caller, bill: { merchant_id: number; store_id: number }, data: PaymentCreate) => ({
    id,
    merchant_id: bill.merchant_id,
    store_id: bill.store_id,
    bill_id: data.bill_id,
    split_id: data.split_id,
    device_id: caller.type === "device" ? caller.id : null,
    amount: data.amount,
    total_amount: data.amount,
    method_type: data.payment_method.type,
    provider: data.payment_method.provider,
    payment_provider_method_id: data.payment_provider_method_id,
    created_at: clock(),
  });

  /**
   * Card and QR: the payment is recorded pending first (holding its amount), then the gateway intent is made, then
   * the payment takes the intent's id and token. Should that last step fail, the intent is cancelled and the
   * payment failed, so nothing is left half-done.
   */
  async function startExternal(
    id: string,
    caller: Caller,
    bill: Bill,
    data: PaymentCreate,
    finish: (tx: Tx, row: PaymentRow) => Promise<void>,
  ) {
    await payments.transaction(async (tx) => {
      await payments.lockBillPayments(tx, bill.id);
      await requireAvailable(tx, await bills.payable(tx, bill.id), data);
      const row = await payments.create(tx, rowOf(id, caller, bill, data));
      await auditPayment(tx, "payment.created", caller, row, clock());
    });
    const fail = (failure_message: string) =>
      payments.transaction((tx) => payments.settle(tx, id, "fail", { failure_code: "gateway_error", failure_message }));
    let intent: GatewayIntent;
    try {
      intent = await gateway.createIntent(intentBody(rowOf(id, caller, bill, data)), `pos-payment-${id}`);
    } catch (error) {
      await fail(error instanceof Error ? error.message : String(error));
      throw error;
    }
    const token = intent.payment_token?.token ?? null;
    try {
      return await payments.transaction(async (tx) => {
        const row = await payments.update(tx, id, { payment_intent_id: intent.id, payment_token: token });
        await finish(tx, row);
        return row;
      });
    } catch (error) {
      if (token) await gateway.cancel(intent.id, token).catch(() => undefined);
      await fail("the payment could not be recorded");
      throw error;
    }
  }

  /**
   * Settles a card or QR payment from its intent's state, once: the payment moves only while in flight, and a gateway
   * event is recorded as applied in the same transaction. An intent that failed or was cancelled (expired at the
   * gateway too) fails its payment, which frees its bill. A QR intent that succeeded completes its payment and applies
   * the money to the bill; a bill that can no longer take it (paid meanwhile) has the money refunded at the gateway.
   * A card payment completes only by the card app's result, which carries its approval.
   */
  async function settleIntent(
    intent: Pick<GatewayIntent, "id" | "status" | "failure_code" | "failure_message">,
    eventId?: string,
  ) {
    const overpaid = await payments.transaction(async (tx) => {
      const payment = await payments.findByIntent(tx, intent.id);
      if (!payment || payment.method_type === "CASH") return null;
      if (eventId && !(await payments.firstDelivery(tx, eventId))) return null;
      if (intent.status === "failed" || intent.status === "cancelled") {
        await payments.settle(tx, payment.id, "fail", {
          failure_code: intent.failure_code ?? intent.status,
          failure_message: intent.failure_message,
        });
        return null;
      }
      if (intent.status !== "succeeded" || payment.method_type !== "QR") return null;
      await payments.lockBillPayments(tx, payment.bill_id);
      if (!(await payments.settle(tx, payment.id, "complete", { completed_at: clock() }))) return null;
      await auditPayment(tx, "payment.completed", null, payment, clock(), { payment_intent_id: intent.id });
      try {
        await applyToBill(tx, { bill_id: payment.bill_id, split_id: payment.split_id, amount: payment.amount });
        await receipts.issue(tx, payment.id);
        return null;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        await payments.update(tx, payment.id, {
          status: paymentMachine.transition("completed", "bill_refused"),
          completed_at: null,
          failure_code: "bill_not_payable",
          failure_message: error.message,
        });
        return payment;
      }
    });
    if (overpaid) {
      logger.error("a QR payment reached a bill that could not take it; refunding", { payment_id: overpaid.id });
      await gateway.refund(intent.id, overpaid.amount, "the bill was no longer payable", `pos-undo-${overpaid.id}`);
    }
  }

  /**
   * Finishes one card or QR payment that a crash left pending without its intent, under its row lock: the intent is
   * asked for again with the same body and key (the gateway replays it, or makes it now), cancelled, and the payment
   * failed, which frees its bill. False when the gateway does not answer: the payment waits for the next pass.
   */
  async function recoverInterrupted(tx: Tx, payment: PaymentRow) {
    let failure_message = "interrupted before the intent was recorded; cancelled by recovery";
    try {
      const intent = await gateway.createIntent(intentBody(payment), `pos-payment-${payment.id}`);
      if (intent.payment_token) await gateway.cancel(intent.id, intent.payment_token.token);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === "bad_gateway" || error.code === "service_unavailable") {
        logger.warn("recovery left an interrupted payment pending: the gateway did not answer", {
          payment_id: payment.id,
          error: error.message,
        });
        return false;
      }
      // A refusal (the token expired, the intent was cancelled already) still ends the payment: no terminal ever had
      // the intent, so nobody can pay it, and the gateway expires it.
      logger.warn("the gateway refused an interrupted payment's recovery; failing it", {
        payment_id: payment.id,
        error: error.message,
      });
      failure_message = `interrupted before the intent was recorded; the gateway refused its recovery: ${error.message}`;
    }
    await payments.settle(tx, payment.id, "fail", { failure_code: "gateway_error", failure_message });
    return true;
  }

  /**
   * Finishes the Idempotency-Keys of POST /payments whose request died (still processing `STALE_AFTER_MS` after
   * their claim, as the gateway takes over its abandoned keys), one row lock at a time: a key whose payment was
   * written answers it from now on; a key whose payment never was is released, for the same request to take over
   * with the same payment id (so the gateway's key finds any intent the dead request made).
   */
  async function recoverAbandonedKeys(before: Date) {
    for (let handled = 0; handled < RECOVERY_BATCH; handled++) {
      const done = await payments.transaction(async (tx) => {
        const key = await payments.claimAbandonedKey(tx, before);
        if (!key) return false;
        const payment = await payments.find(key.payment_id, tx);
        if (payment) await payments.completeKey(tx, key.store_id, key.idempotency_key, toJson(presentPayment(payment)));
        else await payments.markKeyReleased(tx, key.store_id, key.idempotency_key);
        return true;
      });
      if (!done) break;
    }
  }

  return {
    /**
     * The recovery pass: card and QR payments still pending without their intent `STALE_AFTER_MS` after they were
     * taken (the process died between the steps of `startExternal`) are cancelled at the gateway and failed, one row
     * lock at a time (`FOR UPDATE SKIP LOCKED`, so two processes never handle one). Stops at the first payment the
     * gateway does not answer for. Then the Idempotency-Keys such deaths left processing are finished or released.
     * Returns the ids of the payments it failed.
     */
    async recoverStalePayments(now: Date = clock()) {
      const recovered: string[] = [];
      const before = new Date(now.getTime() - STALE_AFTER_MS);
      for (let handled = 0; handled < RECOVERY_BATCH; handled++) {
        const done = await payments.transaction(async (tx) => {
          const payment = await payments.claimInterrupted(tx, before);
          if (!payment) return null;
          return (await recoverInterrupted(tx, payment)) ? payment.id : false;
        });
        if (!done) break;
        recovered.push(done);
      }
      await recoverAbandonedKeys(before);
      return recovered;
    },

    /**
     * Takes a payment of a bill (or of one of its splits). An Idempotency-Key (per store, 24 hours) replays the first
     * response; the same key with other parameters, or while the first request runs, is `idempotency_conflict`.
     */
    async create(
      caller: Caller,
      input: unknown,
      key?: string | null,
    ): Promise<{ payment: PresentedPayment; replayed: boolean }> {
      if (caller.type === "device") requireDevice(caller, { scope: PAYMENT_SCOPE });
      const data = parseInput(paymentCreate, input);
      const bill = await bills.get(caller, data.bill_id);
      if (data.payment_method.type === "CASH") {
        if (data.cash_received === undefined)
          throw invalidField("cash_received", "required", "cash_received is required for cash");
        if (data.cash_received < data.amount)
          throw invalidField("cash_received", "at_least_amount", "cash_received must be at least the amount");
      }
      const claim = await claimKey(bill.store_id, key, paymentFingerprint(data), randomUUID());
      if (claim?.replayed) return { payment: claim.response as PresentedPayment, replayed: true };
      const remember = async (tx: Tx, row: PaymentRow) => {
        if (key) await payments.completeKey(tx, bill.store_id, key, toJson(presentPayment(row)));
      };
      const id = claim?.payment_id ?? randomUUID();
      try {
        let row: PaymentRow;
        if (data.payment_method.type === "CASH") {
          const cash = data.cash_received!;
          row = await payments.transaction(async (tx) => {
            const made = await payCash(tx, id, caller, bill, data, cash);
            await remember(tx, made);
            return made;
          });
        } else {
          row = await startExternal(id, caller, bill, data, remember);
        }
        return { payment: presentPayment(row), replayed: false };
      } catch (error) {
        if (key) await payments.releaseKey(bill.store_id, key);
        throw error;
      }
    },

    /** One payment; a QR payment still in flight asks the gateway first, should its event be late. */
    async get(caller: Caller, id: string) {
      const payment = await readable(caller, id);
      if (
        payment.method_type === "QR" &&
        payment.status === "pending" &&
        payment.payment_intent_id &&
        payment.payment_token
      ) {
        try {
          await settleIntent(await gateway.retrieve(payment.payment_intent_id, payment.payment_token));
          return presentPayment(await readable(caller, id));
        } catch (error) {
          logger.warn("following a QR payment's intent failed", { payment_id: id, error: String(error) });
        }
      }
      return presentPayment(payment);
    },

    async list(caller: Caller, args: ListArguments) {
      const { filter, page, scope } = await parseListArguments(access, caller, paymentFilter, args);
      return mapPage(await payments.list(scope, filter, page), presentPayment);
    },

    /**
     * The card app's result for a card payment in flight. Approved: the money is applied to the bill, the payment
     * completes and the intent is captured, in one transaction (a capture the gateway refuses changes nothing here).
     * Declined, failed or cancelled: the payment fails, the intent is cancelled, the bill stays payable.
     */
    async recordCardResult(caller: Caller, id: string, input: unknown) {
      if (caller.type === "device") requireDevice(caller, { scope: PAYMENT_SCOPE });
      const result = parseInput(cardResult, input);
      const payment = await readable(caller, id);
      if (payment.method_type !== "CREDIT_CARD")
        throw new AppError("invalid_state", "only a card payment takes a card app result", {
          method: payment.method_type,
        });
      paymentMachine.transition(payment.status, result.status === "success" ? "complete" : "fail");
      if (!payment.payment_intent_id)
        throw new AppError("invalid_state", "the payment has no gateway intent yet to take a card result", {
          status: payment.status,
        });
      const intentId = payment.payment_intent_id;
      if (result.status !== "success") {
        const failed = await payments.transaction(async (tx) =>
          payments.settle(tx, id, "fail", {
            failure_code: result.status,
            failure_message: result.error_message ?? `the card app reported ${result.status}`,
          }),
        );
        if (!failed) throw new AppError("invalid_state", "the payment was settled meanwhile");
        if (payment.payment_token) await gateway.cancel(intentId, payment.payment_token).catch(() => undefined);
        return presentPayment(await readable(caller, id));
      }
      await payments.transaction(async (tx) => {
        await payments.lockBillPayments(tx, payment.bill_id);
        const moved = await payments.settle(tx, id, "complete", {
          completed_at: clock(),
          approval_code: result.approval_code,
          card_document_number: result.card_document_number,
          card_last_4: result.card_last_4,
          card_brand: result.card_brand,
          card_arn: result.card_arn,
        });
        if (!moved) throw new AppError("invalid_state", "the payment was settled meanwhile");
        await auditPayment(tx, "payment.completed", caller, payment, clock(), { approval_code: result.approval_code });
        await applyToBill(tx, { bill_id: payment.bill_id, split_id: payment.split_id, amount: payment.amount });
        await receipts.issue(tx, id);
        await gateway.capture(intentId, payment.amount, `pos-capture-${id}`);
      });
      return presentPayment(await readable(caller, id));
    },

    /** A payment of a store already checked against the caller (`Store.pos_payment`), under the store's merchant. */
    async inStore(store: ReachableStore, id: string) {
      const payment = isUuid(id) ? await payments.find(id) : null;
      if (!payment || payment.store_id !== store.id || payment.merchant_id !== store.merchantId)
        throw notFound("payment");
      return presentPayment(payment);
    },

    /** For POS refunds: a payment the caller reaches, as stored. */
    readable,

    /** For POS refunds: the Idempotency-Keys of payments, shared per store (a refund's fingerprint differs). */
    keys: {
      claim: claimKey,
      complete: (tx: Tx, store_id: number, key: string, response: unknown) =>
        payments.completeKey(tx, store_id, key, toJson(response)),
      release: (store_id: number, key: string) => payments.releaseKey(store_id, key),
    },

    /** For POS refunds, in the refund's first transaction: the payment locked, to count what its refunds hold. */
    lock: (tx: Tx, id: string) => payments.lock(tx, id),

    /**
     * For POS refunds, in the transaction that records a refund the gateway made: the payment's refunded total and
     * reason (refunded once it is all given back), and the bill's amounts.
     */
    async applyRefund(tx: Tx, refund: RefundMade) {
      const payment = await payments.lock(tx, refund.payment_id);
      const refunded = payment.refund_amount + refund.amount;
      if (refunded > payment.amount)
        throw invalidField("refund_amount", "refundable_amount", `at most ${payment.amount} can be refunded`);
      await payments.update(tx, payment.id, {
        refund_amount: refunded,
        refund_reason: refund.reason,
        status: paymentMachine.transition(
          payment.status,
          refunded === payment.amount ? "refund_in_full" : "refund_in_part",
        ),
      });
      await auditPayment(tx, "payment.refunded", refund.actor, payment, clock(), {
        refund_id: refund.id,
        refund_amount: refund.amount,
        refunded_total: refunded,
        approver_login_id: refund.staff_code,
      });
      const bill = await bills.applyRefund(tx, { bill_id: payment.bill_id, amount: refund.amount });
      await customers.recordRefund(tx, bill, refund.amount);
    },

    /**
     * Consumes the gateway's internal events: an intent that failed or was cancelled (or expired) fails its card or QR
     * payment; a QR intent that succeeded completes its payment.
     */
    consume: (bus: MessageBus) =>
      bus.consume("events.internal", "pos-payments", async (event: BusEvent) => {
        if (event.aggregate_type !== "payment_intent" || !paymentIntentTerminalEvents.has(event.event_type)) return;
        const intent = event.payload.payment_intent as GatewayIntent | undefined;
        if (intent) await settleIntent(intent, event.id);
      }),
  };
}

const toJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;

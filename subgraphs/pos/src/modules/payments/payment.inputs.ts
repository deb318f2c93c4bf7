import { printable } from "@pos-cloud/common";
import { z } from "zod";
import { occurredAt } from "../../sale-time";
import { businessDate } from "../settlements/settlement.inputs";

export const paymentMethodTypes = ["CASH", "CREDIT_CARD", "EMONEY", "QR"] as const;

/**
 * The e-money brands a Japanese terminal's reader takes (docs/decisions/pos.md, "E-money pays"): transport IC cards
 * (Suica, PASMO, ICOCA and the others, one brand since they interoperate), iD, QUICPay, WAON, nanaco, Rakuten Edy.
 */
export const emoneyBrands = ["transport_ic", "id", "quicpay", "waon", "nanaco", "rakuten_edy"] as const;

/**
 * How the money comes: the spec's method types; a QR may name its provider (the web view may choose one), e-money
 * names its brand (the clerk picks it before the customer taps).
 */
export const paymentMethod = z
  .strictObject({
    type: z.enum(paymentMethodTypes),
    provider: z
      .string()
      .regex(/^[a-z0-9-]{1,40}$/)
      .optional(),
    brand: z.enum(emoneyBrands).optional(),
  })
  .superRefine((method, context) => {
    if (method.type === "EMONEY" && method.brand === undefined)
      context.addIssue({
        code: "custom",
        path: ["brand"],
        message: "brand is required for e-money",
        params: { constraint: "required" },
      });
    if (method.type !== "EMONEY" && method.brand !== undefined)
      context.addIssue({
        code: "custom",
        path: ["brand"],
        message: "a brand is for e-money",
        params: { constraint: "emoney_only" },
      });
  });

const amount = z.number().int().positive().max(100_000_000);

/** POST /payments. Unknown fields (a card number, a PIN) are refused by name. */
export const paymentCreate = z
  .strictObject({
    bill_id: z.uuid(),
    split_id: z.uuid().optional(),
    amount,
    tip_amount: z.number().int().min(0).max(100_000_000).default(0),
    payment_method: paymentMethod,
    payment_provider_method_id: z.number().int().positive().max(2_147_483_647).optional(),
    cash_received: amount.optional(),
    occurred_at: occurredAt,
  })
  .superRefine((data, context) => {
    if (data.payment_method.type !== "CASH" && data.cash_received !== undefined)
      context.addIssue({ code: "custom", path: ["cash_received"], message: "cash_received is for cash payments" });
    if (data.payment_method.type !== "QR" && data.payment_method.provider !== undefined)
      context.addIssue({ code: "custom", path: ["payment_method", "provider"], message: "a provider is for QR" });
    if (data.payment_method.type !== "CASH" && data.occurred_at !== undefined)
      context.addIssue({
        code: "custom",
        path: ["occurred_at"],
        message: "occurred_at is for cash payments: a card, e-money or QR payment needs the network as it happens",
      });
  });

export type PaymentCreate = z.output<typeof paymentCreate>;

/**
 * PATCH /payments/{id}: the result of the terminal's card app or e-money reader. `success` (the default) carries the
 * approval; a declined, failed or cancelled result fails the payment. Only the last four digits of a card are taken.
 * `amount`, when the terminal reports what it charged, must be the payment's (`recordCardResult`).
 */
const readerResult = z.strictObject({
  status: z.enum(["success", "declined", "error", "cancelled"]).default("success"),
  amount: z.number().int().positive().max(100_000_000).optional(),
  approval_code: z
    .string()
    .regex(/^[A-Za-z0-9]{1,20}$/)
    .optional(),
  card_document_number: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,40}$/)
    .optional(),
  card_last_4: z
    .string()
    .regex(/^\d{4}$/)
    .optional(),
  card_brand: printable(z.string().min(1).max(30)).optional(),
  card_arn: z
    .string()
    .regex(/^[A-Za-z0-9]{1,40}$/)
    .optional(),
  error_message: z.string().max(255).optional(),
});

/** What an approval must carry, by what took it. */
const approvedWith =
  (fields: ("approval_code" | "card_document_number")[], what: string) =>
  (data: { status: string; approval_code?: string; card_document_number?: string }, context: z.RefinementCtx) => {
    if (data.status !== "success") return;
    for (const field of fields)
      if (data[field] === undefined)
        context.addIssue({ code: "custom", path: [field], message: `${field} is required for an approved ${what}` });
  };

/**
 * A card app's result: an approved card has its approval code and slip number, and may carry a tip the customer
 * added on the slip after the authorisation, captured on top up to the store's ceiling at the gateway.
 */
export const cardResult = readerResult
  .extend({ added_tip_amount: z.number().int().min(0).max(100_000_000).optional() })
  .superRefine(approvedWith(["approval_code", "card_document_number"], "card"))
  .superRefine((data, context) => {
    if (data.status !== "success" && data.added_tip_amount)
      context.addIssue({ code: "custom", path: ["added_tip_amount"], message: "a tip is added to an approved card" });
  });

/**
 * An e-money reader's result: its slip number; an approval code only where the brand gives one (iD and QUICPay do,
 * a prepaid card's balance needs none). No card brand or acquirer reference: the brand is the payment's own.
 */
export const emoneyResult = readerResult
  .omit({ card_brand: true, card_arn: true })
  .superRefine(approvedWith(["card_document_number"], "e-money payment"));

export type CardResult = z.output<typeof cardResult>;

export const paymentFilter = z
  .strictObject({
    bill_id: z.uuid().optional(),
    status: z.enum(["pending", "processing", "completed", "failed", "refunded"]).optional(),
    method: z.enum(paymentMethodTypes).optional(),
    min_amount: z.int().min(0).optional(),
    max_amount: z.int().min(0).optional(),
    from: z.date().optional(),
    to: z.date().optional(),
  })
  .refine((f) => f.min_amount === undefined || f.max_amount === undefined || f.min_amount <= f.max_amount, {
    path: ["max_amount"],
    message: "max_amount must not be below min_amount",
  });

export type PaymentFilter = z.output<typeof paymentFilter>;

/** A customer's spend over business days: `from` to `to`, both included. */
export const customerSpendQuery = z.strictObject({ from: businessDate, to: businessDate });

import { printable } from "@pos-cloud/common";
import { z } from "zod";

/** How the money comes: the spec's method types; a QR may name its provider (the web view may choose one). */
export const paymentMethod = z.strictObject({
  type: z.enum(["CASH", "CREDIT_CARD", "QR"]),
  provider: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/)
    .optional(),
});

const amount = z.number().int().positive().max(100_000_000);

/** POST /payments. Unknown fields (a card number, a PIN) are refused by name. */
export const paymentCreate = z
  .strictObject({
    bill_id: z.uuid(),
    split_id: z.uuid().optional(),
    amount,
    payment_method: paymentMethod,
    payment_provider_method_id: z.number().int().positive().max(2_147_483_647).optional(),
    cash_received: amount.optional(),
  })
  .superRefine((data, context) => {
    if (data.payment_method.type !== "CASH" && data.cash_received !== undefined)
      context.addIssue({ code: "custom", path: ["cash_received"], message: "cash_received is for cash payments" });
    if (data.payment_method.type !== "QR" && data.payment_method.provider !== undefined)
      context.addIssue({ code: "custom", path: ["payment_method", "provider"], message: "a provider is for QR" });
  });

export type PaymentCreate = z.output<typeof paymentCreate>;

/**
 * PATCH /payments/{id}: the card app's result. `success` (the default) carries the approval; a declined, failed or
 * cancelled result fails the payment. Only the last four digits of a card are taken.
 */
export const cardResult = z
  .strictObject({
    status: z.enum(["success", "declined", "error", "cancelled"]).default("success"),
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
  })
  .superRefine((data, context) => {
    if (data.status !== "success") return;
    for (const field of ["approval_code", "card_document_number"] as const)
      if (data[field] === undefined)
        context.addIssue({ code: "custom", path: [field], message: `${field} is required for an approved card` });
  });
export type CardResult = z.output<typeof cardResult>;

export const paymentFilter = z
  .strictObject({
    bill_id: z.uuid().optional(),
    status: z.enum(["pending", "processing", "completed", "failed", "refunded"]).optional(),
    method: z.enum(["CASH", "CREDIT_CARD", "QR"]).optional(),
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

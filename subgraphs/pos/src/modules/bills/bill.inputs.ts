import { z } from "zod";
import { occurredAt } from "../../sale-time";
import { tableNumber } from "../orders/order.inputs";

export const billCreate = z.strictObject({
  order_id: z.uuid(),
  staff_code: z.string(),
  tax_percentage: z.number().int().min(0).max(100),
  occurred_at: occurredAt,
});

const split = z.strictObject({
  amount: z.number().int().positive().optional(),
  item_ids: z.array(z.uuid()).min(1).max(200).optional(),
});

/** Every part by amount, or every part by items; two to twenty parts. */
export const billSplit = z.strictObject({
  splits: z
    .array(split)
    .min(2)
    .max(20)
    .refine(
      (parts) =>
        parts.every((part) => part.amount !== undefined && part.item_ids === undefined) ||
        parts.every((part) => part.item_ids !== undefined && part.amount === undefined),
      { message: "give every split an amount, or every split item_ids" },
    ),
});

export const billCombine = z.strictObject({
  store_id: z.number().int().positive().optional(),
  table_numbers: z
    .array(tableNumber)
    .min(2)
    .max(20)
    .refine((tables) => new Set(tables).size === tables.length, { message: "each table once" }),
  staff_code: z.string(),
});

export const billFilter = z.strictObject({
  status: z.enum(["pending", "partial", "paid", "cancelled"]).optional(),
  table_number: tableNumber.optional(),
  order_id: z.uuid().optional(),
  from: z.date().optional(),
  to: z.date().optional(),
});

export type BillFilter = z.output<typeof billFilter>;

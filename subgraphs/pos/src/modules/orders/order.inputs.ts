import { printable } from "@pos-cloud/common";
import { z } from "zod";
import { occurredAt } from "../../sale-time";

const amount = z.number().int().min(0);
export const tableNumber = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _-]{0,19}$/, "1 to 20 letters, digits, spaces, '-' or '_'");

const item = z.strictObject({
  sequence: z.number().int().min(1).max(999),
  item_name: printable(z.string().trim().min(1).max(200)),
  quantity: z.number().int().min(1).max(9999),
  unit_price: amount.max(100_000_000),
});

const items = z
  .array(item)
  .min(1)
  .max(200)
  .refine((list) => new Set(list.map((entry) => entry.sequence)).size === list.length, {
    message: "each item needs its own sequence",
  });

const orderType = z.enum(["dine_in", "takeaway", "delivery"]);

export const orderCreate = z
  .strictObject({
    store_id: z.number().int().positive().optional(),
    order_type: orderType,
    table_number: tableNumber.optional(),
    customer_id: z.uuid().optional(),
    discount_amount: amount.optional(),
    items,
    occurred_at: occurredAt,
  })
  .refine((order) => order.order_type !== "dine_in" || order.table_number !== undefined, {
    message: "a dine_in order needs its table_number",
    path: ["table_number"],
  });

export const orderUpdate = z
  .strictObject({
    order_type: orderType.optional(),
    table_number: tableNumber.nullable().optional(),
    customer_id: z.uuid().nullable().optional(),
    discount_amount: amount.optional(),
    items: items.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: "give at least one field to change" });

export const orderFilter = z.strictObject({
  status: z.enum(["open", "billed", "completed", "cancelled"]).optional(),
  table_number: tableNumber.optional(),
  device_id: z.uuid().optional(),
  from: z.date().optional(),
  to: z.date().optional(),
});

const businessDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "a date is YYYY-MM-DD")
  .refine((value) => {
    const day = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
  }, "not a date of the calendar");

/** A customer's purchase history: business days (Asia/Tokyo), both included. */
export const purchaseHistoryFilter = z
  .strictObject({ start_date: businessDate.optional(), end_date: businessDate.optional() })
  .refine((range) => !range.start_date || !range.end_date || range.start_date <= range.end_date, {
    message: "end_date must not be before start_date",
    path: ["end_date"],
  });

export type OrderCreate = z.output<typeof orderCreate>;
export type OrderUpdate = z.output<typeof orderUpdate>;
export type OrderFilter = z.output<typeof orderFilter>;

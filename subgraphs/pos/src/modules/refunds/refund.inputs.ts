import { z } from "zod";

/** POST /payments/{id}/refund. */
export const refundCreate = z.strictObject({
  refund_amount: z.number().int().positive().max(100_000_000),
  reason: z.string().trim().min(1).max(255),
  staff_code: z.string(),
  staff_pin: z.string().min(1).max(128).nullish(),
});

export type RefundCreate = z.output<typeof refundCreate>;

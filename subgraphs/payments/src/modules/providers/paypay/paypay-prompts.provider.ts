import { invalidField } from "@pos-cloud/common";
import { z } from "zod";
import type { ProviderPrompts } from "../provider.contract";

/**
 * PayPay's webhook body: a `notification_type`, and for a payment (`Transaction`) the merchant payment id as
 * `merchant_order_id`. Only that id is read; the state and amount it carries are not believed.
 */
const notificationSchema = z.object({
  notification_type: z.string(),
  merchant_order_id: z.string().min(1).max(64).optional(),
});

/**
 * PayPay signs no notification (its reference offers source addresses to allow, no signature): each one only makes
 * the gateway read the payment it names through the signed API (docs/decisions/payments.md, "PayPay's notifications
 * only prompt a read").
 */
export const payPayPrompts: ProviderPrompts = {
  parse(rawBody) {
    let body: unknown;
    try {
      body = JSON.parse(rawBody.toString("utf8"));
    } catch {
      throw invalidField("body", "json", "the notification is not JSON");
    }
    const parsed = notificationSchema.safeParse(body);
    if (!parsed.success) throw invalidField("body", "notification_shape", "not a PayPay notification");
    if (parsed.data.notification_type !== "Transaction") return "not_a_payment";
    if (!parsed.data.merchant_order_id)
      throw invalidField("body", "notification_shape", "a Transaction notification names its merchant_order_id");
    return { provider_transaction_id: parsed.data.merchant_order_id };
  },
};

import { z } from "zod";
import { partnerEventTypes } from "./webhook-event.presenter";

export const MAX_URL_LENGTH = 2048;

/*
 * Each check's issue names the broken rule (`url`, `https`): the parser (`webhook-url.ts`) answers it with the
 * field, constraint and sentence the gateway has always answered. Checks run in this order and the first issue wins.
 */

/**
 * A webhook URL's format, in every deployment: at most 2048 characters, absolute, http or https as sent (any
 * letter case), no user name or password before the host. That https alone is allowed and the host must be a public
 * address hold outside development only, so they are the parser's, and the reference says them in words.
 */
export const webhookUrl = z
  .string({ error: "url" })
  .max(MAX_URL_LENGTH, { error: "max_length" })
  .refine((value) => URL.canParse(value), { error: "url" })
  .regex(/^[hH][tT][tT][pP][sS]?:\/\//, { error: "https" })
  .regex(/^[^:]+:\/\/[^/?#@\\]*(?:[/?#]|$)/, { error: "no_credentials" })
  .meta({ description: "An https:// URL at a public address (http:// and private addresses in development only)." });

/** A key's automatic redelivery: `off`, or the order its dead letters are queued in. */
export const autoRedelivery = z.enum(["off", "oldest_first", "newest_first"]).meta({
  description:
    "off (the default), or the order in which dead letters are sent again once the endpoint answers 2xx again; absent leaves it as it is.",
});

/** PUT /v1/api_key/webhook (setApiKeyWebhook): the key's client_id comes from the signature, not the body. */
export const apiKeyWebhookSet = z.object({ webhook_url: webhookUrl, auto_redelivery: autoRedelivery.optional() });

/** A delivery's status as a partner filters by it: the delivery states, and `failed` (its last attempt failed). */
export const deliveryFilterStatuses = ["pending", "failed", "delivered", "dead", "dropped"] as const;

/** The types of event a partner receives. */
const eventType = z.enum([...partnerEventTypes]);

/** GET /v1/webhook_deliveries (webhookDeliveries): what a partner lists its deliveries by. */
export const deliveryFilter = z
  .strictObject({
    status: z.enum(deliveryFilterStatuses).optional(),
    event_type: eventType.optional(),
    created_after: z.date().optional(),
    created_before: z.date().optional(),
  })
  .refine(({ created_after, created_before }) => !created_after || !created_before || created_after < created_before, {
    path: ["created_after"],
    message: "created_after must be before created_before",
    params: { constraint: "before_created_before" },
  });

/** POST /v1/webhook_deliveries/redeliver (redeliverPartnerWebhooks): the dead letters created since then. */
export const redeliverySince = z.strictObject({ since: z.date() });

/** GET /v1/events (partnerEvents): what a partner lists its events by. */
export const eventFilter = z.strictObject({
  type: eventType.optional(),
  created_after: z.date().optional(),
});

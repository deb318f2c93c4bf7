import { operationRoute } from "../operation-route";
import {
  PartnerEventsDocument,
  RedeliverWebhookDocument,
  RedeliverWebhooksDocument,
  WebhookDeliveriesDocument,
} from "../operations/gateway.generated";
import { integerParam } from "../params";
import type { RestRoute } from "../router";
import { fieldOf, signingKey } from "./api-key-webhook";

/** A cursor page: `limit` and the `after` of an earlier page's `end_cursor`. */
const cursorPage = (query: URLSearchParams) => ({
  limit: integerParam(query.get("limit"), "limit"),
  after: query.get("after"),
});

/**
 * A partner's recovery of missed webhooks, over HMAC for the key that signs: its deliveries with their attempts,
 * redelivery of one or of its dead letters since a time, and the events it was or would have been sent.
 */
export const webhookDeliveryRoutes: RestRoute[] = [
  operationRoute(
    "GET",
    "/v1/webhook_deliveries",
    "webhookDeliveries",
    WebhookDeliveriesDocument,
    (request) => ({
      ...signingKey(request),
      status: request.query.get("status"),
      event_type: request.query.get("event_type"),
      created_after: request.query.get("created_after"),
      created_before: request.query.get("created_before"),
      ...cursorPage(request.query),
    }),
    { auth: "hmac", page: true },
  ),
  operationRoute(
    "POST",
    "/v1/webhook_deliveries/redeliver",
    "redeliverPartnerWebhooks",
    RedeliverWebhooksDocument,
    (request) => ({ input: { ...signingKey(request), since: fieldOf(request, "since") } }),
    { auth: "hmac" },
  ),
  operationRoute(
    "POST",
    "/v1/webhook_deliveries/:id/redeliver",
    "redeliverPartnerWebhook",
    RedeliverWebhookDocument,
    (request) => ({ ...signingKey(request), id: request.params.id }),
    { auth: "hmac" },
  ),
  operationRoute(
    "GET",
    "/v1/events",
    "partnerEvents",
    PartnerEventsDocument,
    (request) => ({
      ...signingKey(request),
      type: request.query.get("type"),
      created_after: request.query.get("created_after"),
      ...cursorPage(request.query),
    }),
    { auth: "hmac", page: true },
  ),
];

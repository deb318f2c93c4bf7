import type { z } from "zod";
import { confirmBody } from "./modules/confirm/confirm.inputs";
import { apiKeyRestriction } from "./modules/partners/api-key.inputs";
import { grantCreate } from "./modules/partners/grant.inputs";
import { merchantSync } from "./modules/partners/merchant-sync.inputs";
import {
  paymentIntentCapture,
  paymentIntentCreate,
  paymentIntentRefund,
} from "./modules/payment-intents/payment-intent.inputs";
import { qrDifferenceResolve } from "./modules/reconciliation/reconciliation.inputs";
import { apiKeyWebhookSet, deliveryFilter, eventFilter, redeliverySince } from "./modules/webhooks/webhook.inputs";

/**
 * The validator each GraphQL input type of the payments subgraph meets in its service, by the type's name: the API
 * reference (`rest-compat/src/openapi.ts`) describes a `/v1` request body with it, so the reference says what the
 * gateway checks. Loaded by the edge, so this file and what it imports stay free of storage.
 */
export const requestSchemas: Record<string, z.ZodType> = {
  CreatePaymentIntentInput: paymentIntentCreate,
  CapturePaymentIntentInput: paymentIntentCapture,
  RefundPaymentIntentInput: paymentIntentRefund,
  SyncMerchantsInput: merchantSync,
  IssueApiKeyInput: apiKeyRestriction,
  GrantPartnerInput: grantCreate,
};

/**
 * The validator of a body whose fields are the operation's arguments, or part of its input beside what the signature
 * gives (the key's client_id), by the mutation field: its fields are the REST route's body fields.
 */
export const bodyFields: Record<string, z.ZodObject> = {
  setApiKeyWebhook: apiKeyWebhookSet,
  confirmPaymentIntent: confirmBody,
  redeliverPartnerWebhooks: redeliverySince,
  resolveQrDifference: qrDifferenceResolve,
};

/** The validator of a list's filters, by the query field that lists: its fields are the REST route's query parameters. */
export const queryFilters: Record<string, z.ZodObject> = {
  webhookDeliveries: deliveryFilter,
  partnerEvents: eventFilter,
};

export { createPartnerClient, type PartnerClient, type PartnerClientOptions } from "./client.ts";
export { PartnerApiError } from "./errors.ts";
export type { components, operations, paths } from "./openapi.generated.ts";
export type { RetryOptions } from "./retry.ts";
export {
  type PartnerWebhookEvent,
  type PaymentIntentEventData,
  verifyWebhook,
  WebhookVerificationError,
} from "./webhooks.ts";

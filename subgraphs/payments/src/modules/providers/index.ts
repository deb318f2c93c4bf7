export type {
  CreatedQr,
  CreateQrRequest,
  FollowMode,
  PaymentProvider,
  ProviderCredentials,
  ProviderFailure,
  ProviderNotification,
  ProviderPayment,
  ProviderPaymentStatus,
  QrMode,
} from "./provider";
export { followsByPolling, followsByWebhook } from "./provider";
export type { ProviderCredentialStore } from "./provider-credentials";
export type { ProviderDirectory } from "./provider-directory";

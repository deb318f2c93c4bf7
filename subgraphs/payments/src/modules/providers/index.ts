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
} from "./provider.contract";
export { followsByPolling, followsByWebhook } from "./provider.contract";
export type { ProviderCredentialStore } from "./provider-credentials.service";
export type { ProviderDirectory } from "./provider-directory.service";

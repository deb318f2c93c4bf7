export type {
  CreatedQr,
  CreateQrRequest,
  PaymentProvider,
  ProviderCredentials,
  ProviderFailure,
  ProviderNotification,
  ProviderPayment,
  ProviderPaymentStatus,
  QrMode,
} from "./provider.contract";
export type { ProviderCredentialStore } from "./provider-credentials.service";
export type { ProviderDirectory } from "./provider-directory.service";

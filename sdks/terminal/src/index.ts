export {
  type ActivateByCodeOptions,
  type ActivateOptions,
  activate,
  activateByCode,
  type DeviceCredentials,
} from "./activate";
export { ChecksumMismatchError, type VerifiedUpdate } from "./app-update";
export {
  clientAssertion,
  type DeviceKey,
  type DeviceKeyPair,
  generateDeviceKeyPair,
  type PrivateJwk,
  publicJwk,
  type WebCryptoKey,
} from "./assertion";
export { type PlatformErrorBody, TerminalApiError } from "./errors";
export { indexedDbStore } from "./indexeddb-store";
export {
  type EntryState,
  type OfflineQueue,
  type OfflineQueueOptions,
  openOfflineQueue,
} from "./offline-queue";
export type { OfflineStore, QueuedEntry, QueuedRef, QueueRecord, Uploaded } from "./offline-store";
export type { paths } from "./openapi.generated";
export { type FollowedIntent, type PaymentTokenOptions, paymentTokenClient } from "./payment-token";
export {
  type CreateTerminalClientOptions,
  createTerminalClient,
  type FeedOptions,
  type StoreEvent,
  type StoreFeedItem,
  type TerminalClient,
} from "./terminal";
export { REFRESH_AT, TOKEN_PATH } from "./tokens";

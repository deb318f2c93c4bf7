export { type MerchantAccount, requestSignature, signedHeaders } from "./auth";
export { type EmbeddedSandbox, readSandboxSettings, startEmbeddedSandbox } from "./embedded";
export type { NotificationShape } from "./notifications";
export { signatureHeader, signBody } from "./notifier";
export { DEFAULT_RETRY_DELAYS_MS, type RunningSandbox, type SandboxOptions, startSandbox } from "./sandbox";
export type { SandboxStatus, SandboxTransaction } from "./transactions";

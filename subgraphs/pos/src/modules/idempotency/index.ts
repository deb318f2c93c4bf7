export type { StoreIdempotency, StoreKey } from "./idempotency.service";

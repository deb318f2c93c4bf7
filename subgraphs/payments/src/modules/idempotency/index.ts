export type { IdempotencyService } from "./idempotency.service";

import { invalidField } from "@pos-cloud/common";

/**
 * How long a store of the platform's sync partner takes new intents after that partner last synced it: four of the
 * portal's 15-minute full syncs. A store the portal deactivated but could not sync stops within this time.
 */
export const SYNC_LEASE_MS = 60 * 60 * 1000;

/** Fail closed: refuses a store whose lease ran out (`synced_until` null means the store is not leased). */
export function requireCurrentSync(store: { synced_until: Date | null }, now: Date): void {
  if (store.synced_until !== null && store.synced_until <= now) {
    throw invalidField(
      "merchant_store_id",
      "synced_store",
      "this store's configuration has not been synced for an hour; it takes no payments until it is synced again",
    );
  }
}

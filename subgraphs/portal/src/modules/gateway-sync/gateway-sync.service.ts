import { logger, type SecretBox } from "@pos-cloud/common";
import { type GatewaySyncConfig, postSync } from "./gateway-sync.client";
import type { GatewaySyncRepository } from "./gateway-sync.repository";

export type GatewaySyncService = ReturnType<typeof gatewaySyncService>;

/** After a failed push: wait 1 s, 5 s, 25 s, 125 s, then leave it to the periodic full sync. */
export const RETRY_DELAYS_MS = [1_000, 5_000, 25_000, 125_000];
export const FULL_SYNC_INTERVAL_MS = 15 * 60 * 1000;
const PAGE = 100;

type Credentials = Record<string, Record<string, string>>;

/**
 * Pushes tenant and provider configuration to the payment gateway (variant B body, HMAC scheme 1): at once when a
 * merchant or store changes, and every 15 minutes in full, so a missed push is repaired.
 */
export function gatewaySyncService(
  rows: GatewaySyncRepository,
  box: SecretBox,
  config: GatewaySyncConfig | undefined,
  options: { retryDelaysMs?: number[] } = {},
) {
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const timers = new Set<NodeJS.Timeout>();
  let interval: NodeJS.Timeout | undefined;
  let stopped = false;
  const open = (sealed: string | null): Credentials => (sealed ? (JSON.parse(box.open(sealed)) as Credentials) : {});

  /** Variant B: a store's credentials override the merchant's per provider; inactive tenants sync inactive. */
  async function payload(merchantIds?: number[]) {
    const merchants = await rows.merchants(merchantIds);
    return {
      client_partner_id: config?.clientPartnerId,
      merchants: merchants.map((merchant) => {
        const inherited = open(merchant.provider_credentials);
        return {
          merchant_id: merchant.id,
          merchant_code: merchant.code,
          stores: merchant.stores.map((store) => {
            const credentials = { ...inherited, ...open(store.provider_credentials) };
            const active = merchant.status === "active" && store.status === "active";
            return {
              store_id: store.id,
              store_code: store.code,
              provider_configs: Object.entries(credentials).map(([provider_code, fields]) => ({
                provider_code,
                credentials: fields,
                is_active: active,
              })),
            };
          }),
        };
      }),
    };
  }

  async function push(merchantIds: number[], attempt = 0): Promise<void> {
    if (!config || stopped) return;
    try {
      await postSync(config, await payload(merchantIds));
    } catch (error) {
      const delay = delays[attempt];
      if (stopped) return;
      if (delay === undefined) {
        logger.error("gateway sync gave up; the periodic full sync will retry", { merchantIds, error });
        return;
      }
      logger.warn("gateway sync failed; retrying", { merchantIds, attempt: attempt + 1, delay_ms: delay });
      const timer = setTimeout(() => {
        timers.delete(timer);
        void push(merchantIds, attempt + 1);
      }, delay);
      timers.add(timer);
    }
  }

  return {
    payload,
    /** Called after a merchant's or store's configuration changed; never fails the change itself. */
    changed(merchantId: number) {
      void push([merchantId]);
    },
    /** Every merchant, a page at a time. */
    async fullSync() {
      if (!config) return;
      for (let after = 0; !stopped; ) {
        const ids = await rows.merchantIds(after, PAGE);
        if (ids.length === 0) return;
        await push(ids);
        after = ids[ids.length - 1]!;
      }
    },
    /** Starts the periodic full sync. */
    start(intervalMs = FULL_SYNC_INTERVAL_MS) {
      const run = () => {
        void this.fullSync().catch((error) => logger.error("gateway full sync failed", { error }));
      };
      interval = setInterval(run, intervalMs);
      return { stop: () => this.stop() };
    },
    /** Stops the periodic sync and pending retries; pushes in flight end at their next step. */
    stop() {
      stopped = true;
      clearInterval(interval);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

import { logger, type SecretBox } from "@pos-cloud/common";
import { GatewayAnswerError, type GatewaySyncConfig, postSync } from "./gateway-sync.client";
import type { GatewaySyncRepository } from "./gateway-sync.repository";

export type GatewaySyncService = ReturnType<typeof gatewaySyncService>;

/** After a failed push: wait 1 s, 5 s, 25 s, 125 s, then leave it to the periodic full sync. */
export const RETRY_DELAYS_MS = [1_000, 5_000, 25_000, 125_000];
export const FULL_SYNC_INTERVAL_MS = 15 * 60 * 1000;
const PAGE = 100;

type Credentials = Record<string, Record<string, string>>;

/** What a log line says about a failed push: the gateway's answer, else the error and its cause. */
function reasonOf(error: unknown) {
  if (error instanceof GatewayAnswerError) {
    const { code, message, details } = error.answer;
    return { status: error.status, code, reason: message ?? error.message, details };
  }
  if (!(error instanceof Error)) return { reason: String(error) };
  return { reason: error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message };
}

/**
 * Pushes tenant and provider configuration to the payment gateway (variant B body, HMAC scheme 1): at once when a
 * merchant or store changes, and in full at start and every 15 minutes, so a missed push is repaired and the
 * gateway's one-hour lease on every store is renewed (docs/decisions.md). Nothing is pushed until `configure` names
 * the gateway and the portal's client partner there.
 */
export function gatewaySyncService(
  rows: GatewaySyncRepository,
  box: SecretBox,
  options: { retryDelaysMs?: number[] } = {},
) {
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const timers = new Set<NodeJS.Timeout>();
  let config: GatewaySyncConfig | undefined;
  let interval: NodeJS.Timeout | undefined;
  let fullSyncRunning: Promise<void> | undefined;
  let stopped = false;
  // One request at a time, in the order asked: a payload read before a change never lands after the change's own.
  let queue: Promise<unknown> = Promise.resolve();
  const open = (sealed: string | null): Credentials => (sealed ? (JSON.parse(box.open(sealed)) as Credentials) : {});

  /**
   * Variant B: a store's credentials override the merchant's per provider; inactive tenants sync inactive, the store
   * itself (`is_active`, our addition) and each of its provider configurations.
   */
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
              is_active: active,
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

  /** One signed request with the merchants' configuration as it is when its turn comes; throws on any failure. */
  function send(merchantIds: number[]) {
    const sent = queue.then(async () => {
      if (!config) throw new Error("the gateway sync is not configured");
      if (stopped) return;
      await postSync(config, await payload(merchantIds));
    });
    queue = sent.catch(() => undefined);
    return sent;
  }

  /**
   * Pushes these merchants. A delivery failure is retried with backoff, then left to the full sync; a refusal is not
   * retried, since the gateway would refuse the same payload again. A refusal, and a failure retried in vain, raise
   * an alert (an error line with `alert`; there is no alerting system yet): until someone acts, the gateway works
   * from old configuration and these stores' lease runs out.
   */
  async function push(merchantIds: number[], attempt = 0): Promise<"synced" | "refused" | "failed"> {
    if (!config || stopped) return "failed";
    try {
      await send(merchantIds);
      return "synced";
    } catch (error) {
      if (stopped) return "failed";
      const why = reasonOf(error);
      if (error instanceof GatewayAnswerError && error.refused) {
        logger.error("gateway sync refused", { alert: "gateway_sync_refused", merchantIds, ...why });
        return "refused";
      }
      const delay = delays[attempt];
      if (delay === undefined) {
        const message = "gateway sync gave up; the periodic full sync will retry";
        logger.error(message, { alert: "gateway_sync_failed", merchantIds, ...why });
        return "failed";
      }
      logger.warn("gateway sync failed; retrying", { merchantIds, attempt: attempt + 1, delay_ms: delay, ...why });
      const timer = setTimeout(() => {
        timers.delete(timer);
        void push(merchantIds, attempt + 1);
      }, delay);
      timers.add(timer);
      return "failed";
    }
  }

  async function fullSync() {
    if (!config) return;
    for (let after = 0; !stopped; ) {
      const ids = await rows.merchantIds(after, PAGE);
      if (ids.length === 0) return;
      // One refused merchant must not hold back the rest of its page: their stores' lease would run out too.
      if ((await push(ids)) === "refused" && ids.length > 1) {
        for (const id of ids) await push([id]);
      }
      after = ids[ids.length - 1]!;
    }
  }

  return {
    payload,
    /** Names the gateway and the portal's client partner there; the embedded platform learns them after opening. */
    configure(next: GatewaySyncConfig) {
      config = next;
    },
    /** Called after a merchant's or store's configuration changed; never fails the change itself. */
    changed(merchantId: number) {
      void push([merchantId]);
    },
    /** Pushes these merchants now and waits for the gateway's answer, without retrying: its failure is the caller's. */
    sync: (merchantIds: number[]) => send(merchantIds),
    /** Every merchant, a page at a time. */
    fullSync,
    /** Runs a full sync now, without waiting for it, and then every `intervalMs` (one at a time). */
    start(intervalMs = FULL_SYNC_INTERVAL_MS) {
      const run = () => {
        fullSyncRunning ??= fullSync()
          .catch((error) => logger.error("gateway full sync failed", { alert: "gateway_sync_failed", error }))
          .finally(() => {
            fullSyncRunning = undefined;
          });
      };
      run();
      interval = setInterval(run, intervalMs);
    },
    /** Stops the periodic sync and pending retries, and waits for a request or full sync under way. */
    async stop() {
      stopped = true;
      clearInterval(interval);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all([queue, fullSyncRunning]);
    },
  };
}

import { logger, type SecretBox, tipCeilingOf } from "@pos-cloud/common";
import type { Job } from "@pos-cloud/common/jobs";
import { countOutcome, type NextAttempt, nextAttempt, retryPolicies } from "@pos-cloud/common/tasks";
import type { Clock } from "../../clock";
import { GatewayAnswerError, type GatewaySyncConfig, postSync } from "./gateway-sync.client";
import type { ClaimedSync, GatewaySyncRepository } from "./gateway-sync.repository";

export type GatewaySyncService = ReturnType<typeof gatewaySyncService>;

/** After a failed push: wait 1 s, 5 s, 25 s, 125 s, then raise an alert and try every 15 minutes. */
export const FULL_SYNC_INTERVAL_MS = 15 * 60 * 1000;
/** How often the worker looks for due rows when nothing wakes it. */
export const SYNC_POLL_INTERVAL_MS = 1_000;
/** A claim outlives any push (the client's timeout is 10 s); a worker that died gives its rows back then. */
export const SYNC_CLAIM_MS = 60_000;
const BATCH = 100;

type Credentials = Record<string, Record<string, string>>;
type MerchantSync = Awaited<ReturnType<GatewaySyncRepository["merchants"]>>[number];

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
 * Variant B: a store's credentials override the merchant's per provider; inactive tenants sync inactive, the store
 * itself (`is_active`, our addition) and each of its provider configurations. The merchant's `psp_id` (our addition)
 * tells the gateway whose PSP admins grant partners access to it.
 */
function syncBody(
  merchants: MerchantSync[],
  box: SecretBox,
  clientPartnerId: GatewaySyncConfig["clientPartnerId"] | undefined,
) {
  const open = (sealed: string | null): Credentials => (sealed ? (JSON.parse(box.open(sealed)) as Credentials) : {});
  return {
    client_partner_id: clientPartnerId,
    merchants: merchants.map((merchant) => {
      const inherited = open(merchant.provider_credentials);
      return {
        merchant_id: merchant.id,
        merchant_code: merchant.code,
        psp_id: merchant.psp_id,
        stores: merchant.stores.map((store) => {
          const credentials = { ...inherited, ...open(store.provider_credentials) };
          const active = merchant.status === "active" && store.status === "active";
          return {
            store_id: store.id,
            store_code: store.code,
            is_active: active,
            // Always sent, so a key removed in the portal takes the gateway back to the default.
            tip_ceiling_percent: tipCeilingOf(store.payment_config, merchant.payment_config).percent,
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

/** The time of the newest change to these merchants and their stores: what tells a change undone from no change. */
function versionOf(merchants: MerchantSync[]): string {
  const times = merchants.flatMap((merchant) => [
    merchant.updated_at,
    ...merchant.stores.map((store) => store.updated_at),
  ]);
  return new Date(Math.max(0, ...times.map((time) => time.getTime()))).toISOString();
}

/** The registry's job that pushes, and the trigger that runs it early. */
function syncSchedule(rows: GatewaySyncRepository, clock: Clock, pushDue: () => Promise<number>) {
  // Runs the job early while a registry runs it.
  let wake = () => {};
  return {
    /**
     * The job of the registry: a full sync at start (for tenants changed while the platform was down) and every
     * `fullSyncMs`; due rows every `pollMs`, and at once on `changed`.
     */
    job(options: { fullSyncMs?: number; pollMs?: number } = {}): Job {
      const fullSyncMs = options.fullSyncMs ?? FULL_SYNC_INTERVAL_MS;
      let lastFullSync = Number.NEGATIVE_INFINITY;
      return {
        name: "gateway-sync",
        schedule: { everyMs: options.pollMs ?? SYNC_POLL_INTERVAL_MS },
        runAtStart: true,
        alert: "gateway_sync_failed",
        setUp(trigger) {
          wake = trigger;
          return () => {
            wake = () => {};
          };
        },
        async run() {
          if (clock().getTime() - lastFullSync >= fullSyncMs) {
            await rows.enqueueAll(clock());
            lastFullSync = clock().getTime();
          }
          await pushDue();
        },
      };
    },
    /** A merchant's or store's change committed with its row: the job pushes it now rather than at its next look. */
    changed: () => wake(),
  };
}

/**
 * Pushes tenant and provider configuration to the payment gateway (variant B body, HMAC scheme 1), driven by rows of
 * the portal's database: every merchant or store change writes its merchant's row in its own transaction
 * (`enqueueGatewaySync`), and the worker claims due rows, so a push owed survives a crash and any number of
 * instances share the work. All merchants are pushed at start and every 15 minutes, which repairs anything missed
 * and renews the gateway's one-hour lease on every store (docs/decisions.md). Nothing is pushed until `configure`
 * names the gateway and the portal's client partner there.
 */
export function gatewaySyncService(
  rows: GatewaySyncRepository,
  box: SecretBox,
  options: { retryDelaysMs?: number[]; clock?: Clock } = {},
) {
  const policy = options.retryDelaysMs
    ? { delaysMs: options.retryDelaysMs, thenMs: FULL_SYNC_INTERVAL_MS }
    : retryPolicies.gateway_sync;
  const clock = options.clock ?? (() => new Date());
  let config: GatewaySyncConfig | undefined;

  /** What a push of these merchants (of all when none) sends, from their rows as they are now: body and version. */
  async function syncRequest(merchantIds?: number[]) {
    const merchants = await rows.merchants(merchantIds);
    return { payload: syncBody(merchants, box, config?.clientPartnerId), version: versionOf(merchants) };
  }

  /** One signed request with the merchants' configuration as it is now; throws on any failure. */
  async function send(merchantIds: number[]) {
    if (!config) throw new Error("the gateway sync is not configured");
    const { payload, version } = await syncRequest(merchantIds);
    await postSync(config, payload, { version });
  }

  /** Pushes claimed rows in one request; true when the gateway took them, false when it refused one of them. */
  async function push(claimed: ClaimedSync[]): Promise<boolean> {
    const merchantIds = claimed.map((row) => row.merchant_id);
    try {
      await send(merchantIds);
      for (const row of claimed) await rows.done(row);
      countOutcome("gateway_sync", "done", claimed.length);
      return true;
    } catch (error) {
      const why = reasonOf(error);
      if (error instanceof GatewayAnswerError && error.refused) {
        if (claimed.length > 1) return false;
        // Not retried: the gateway would refuse the same payload again. The periodic full sync tries it again.
        logger.error("gateway sync refused", { alert: "gateway_sync_refused", merchantIds, ...why });
        for (const row of claimed) await rows.done(row);
        return true;
      }
      const attempt = Math.min(...claimed.map((row) => row.attempts)) + 1;
      // A policy that never gives up: the full sync's interval follows its listed waits.
      const next = nextAttempt(policy, attempt, clock()) as NextAttempt;
      // Until someone acts, the gateway works from old configuration and these stores' lease runs out.
      if (next.exhausted)
        logger.error("gateway sync keeps failing", { alert: "gateway_sync_failed", merchantIds, attempt, ...why });
      else logger.warn("gateway sync failed; retrying", { merchantIds, attempt, delay_ms: next.delayMs, ...why });
      for (const row of claimed) await rows.failed(row, next.at, why.reason);
      countOutcome("gateway_sync", "retried", claimed.length);
      return true;
    }
  }

  /**
   * One pass over the due rows, a batch per request; a refused batch is pushed merchant by merchant, so one refused
   * merchant holds back no other (their stores' lease would run out too). The number of rows taken.
   */
  async function pushDue(): Promise<number> {
    if (!config) return 0;
    let taken = 0;
    for (;;) {
      const now = clock();
      const claimed = await rows.claim(now, new Date(now.getTime() + SYNC_CLAIM_MS), BATCH);
      if (claimed.length === 0) return taken;
      taken += claimed.length;
      if (!(await push(claimed))) for (const row of claimed) await push([row]);
    }
  }

  return {
    syncRequest,
    /** Names the gateway and the portal's client partner there; the embedded platform learns them after opening. */
    configure(next: GatewaySyncConfig) {
      config = next;
    },
    /** Pushes these merchants now and waits for the gateway's answer, without retrying: its failure is the caller's. */
    sync: send,
    pushDue,
    ...syncSchedule(rows, clock, pushDue),
  };
}

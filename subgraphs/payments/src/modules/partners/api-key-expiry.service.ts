import { eventRow } from "@pos-cloud/common";
import { metrics } from "@pos-cloud/common/metrics";
import { Gauge } from "prom-client";
import type { Clock } from "../../clock";
import type { ApiKey, Prisma } from "../../generated/prisma/client";
import type { PartnerRepository } from "./partner.repository";
import { auditPartnerChange } from "./partner-audit.repository";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Days before expiry at which a partner hears of it, the nearest first (each threshold is written once per key). */
const NOTICE_DAYS = [1, 7, 30] as const;

/** Keys handled per threshold and pass; a backlog goes on at the next pass. */
const BATCH = 100;

const expiringGauge = new Gauge({
  name: "pgw_api_keys_expiring",
  help: "Unrevoked partner API keys that expire within 30 days, as of the last expiry pass.",
  registers: [metrics],
});

/** The partner's notice, a webhook like an intent's terminal event: the key, its expiry and the days left. */
function appendExpiringEvent(tx: Prisma.TransactionClient, key: ApiKey, days: number, at: Date) {
  const api_key = { id: key.id, client_id: key.client_id, expires_at: key.expires_at, days_before_expiry: days };
  const metadata = { client_partner_id: key.client_partner_id, occurred_at: at };
  return tx.outboxEvent.create({ data: eventRow("api_key.expiring", key.id, { api_key, metadata }, at) });
}

/**
 * The periodic pass over key expiry (a sweep of the payment poller): an `api_key.expiring` event 30, 7 and 1 days
 * before a key expires, the expiry itself on record once it passes, and the gauge of keys expiring soon. What was
 * written is marked on the key in the same transaction, so a restart or a second worker sends nothing twice; a key
 * first seen past several thresholds (the platform was down) gets the nearest one only.
 */
export function apiKeyExpiry(deps: { repository: PartnerRepository; clock: Clock }) {
  const { repository, clock } = deps;
  return {
    /** One pass; returns how many notices and expiries it wrote. */
    async sweep(): Promise<number> {
      const now = clock();
      let written = 0;
      for (const days of NOTICE_DAYS) {
        const due = await repository.keysDueNotice(
          days,
          { gt: now, lte: new Date(now.getTime() + days * DAY_MS) },
          BATCH,
        );
        for (const key of due) {
          if (await repository.recordExpiryNotice(key, days, (tx) => appendExpiringEvent(tx, key, days, now)))
            written++;
        }
      }
      for (const key of await repository.keysDueNotice(0, { lte: now }, BATCH)) {
        const change = {
          event: "api_key.expired" as const,
          actor: null,
          target: { type: "api_key" as const, id: key.id },
          metadata: { client_partner_id: key.client_partner_id, client_id: key.client_id },
        };
        if (await repository.recordExpiryNotice(key, 0, (tx) => auditPartnerChange(tx, change, now))) written++;
      }
      expiringGauge.set(await repository.countExpiringKeys(now, new Date(now.getTime() + 30 * DAY_MS)));
      return written;
    },
  };
}

export type ApiKeyExpiry = ReturnType<typeof apiKeyExpiry>;

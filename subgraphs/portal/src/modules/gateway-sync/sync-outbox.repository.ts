import { Prisma } from "../../generated/prisma/client";

/** A merchant that owes a push again: its row is due now, for a new version, from its first attempt. */
export const owedAgain = (now: Date) => Prisma.sql`version = gateway_sync_outbox.version + 1, attempts = 0,
  next_attempt_at = ${now}, last_error = NULL`;

/**
 * Marks a merchant's configuration for the gateway, in the transaction of the tenant change that calls it: the
 * change and the push it owes commit together or not at all. One row per merchant; a later change bumps its version.
 */
export const enqueueGatewaySync = (tx: Prisma.TransactionClient, merchant_id: number, now: Date) =>
  tx.$executeRaw`INSERT INTO gateway_sync_outbox (merchant_id, next_attempt_at, created_at)
    VALUES (${merchant_id}, ${now}, ${now})
    ON CONFLICT (merchant_id) DO UPDATE SET ${owedAgain(now)}`;

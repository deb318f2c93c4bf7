import { AppError, newUlid } from "@pos-cloud/common";
import { claimDue, reschedule } from "../../claims";
import { type PaymentIntent, Prisma, type PrismaClient } from "../../generated/prisma/client";
import type { ProviderNotification } from "../providers";

export type ProviderEventRepository = ReturnType<typeof providerEventRepository>;

/**
 * What became of a notification or a poll: it moved the intent, was already known or out of date, changed nothing
 * yet, or was a payment for an intent that could no longer take it (recorded for a refund).
 */
export type OutcomeResult = "applied" | "duplicate" | "stale" | "pending" | "late_payment";

/**
 * A burst of notifications queues for the database (embedded: one connection): each waits its turn rather than
 * failing after Prisma's default 2 s and being dead-lettered, as 200 payments at once did (docs/benchmarks.md).
 */
const QUEUED = { maxWait: 20_000, timeout: 20_000 };

export const noIntent = (provider_transaction_id: string) =>
  new AppError("not_found", `no payment intent has provider transaction ${provider_transaction_id}`);

export function providerEventRepository(prisma: PrismaClient) {
  return {
    /**
     * The intent of a provider's transaction: the intent's own QR, or one a confirm attempt made and the recovery
     * pass cancelled (docs/decisions.md). None (yet) throws, so the notification is retried or dead-lettered.
     */
    async findIntent(provider: string, provider_transaction_id: string): Promise<PaymentIntent> {
      const attempt = await prisma.confirmAttempt.findUnique({ where: { provider_transaction_id } });
      const intent = await prisma.paymentIntent.findUnique({
        where: attempt ? { id: attempt.payment_intent_id } : { provider_transaction_id },
      });
      const provider_name = attempt ? attempt.provider_name : intent?.provider_name;
      if (!intent || provider_name !== provider) throw noIntent(provider_transaction_id);
      return intent;
    },
    /** Claims a notification's event id: false when it was received already (a second delivery changes nothing). */
    async claimEvent(tx: Prisma.TransactionClient, notification: ProviderNotification, now: Date) {
      const { provider, event_id, provider_transaction_id } = notification;
      const claimed = await tx.providerWebhookEvent.createMany({
        data: [{ provider, event_id, provider_transaction_id, status: "received", received_at: now }],
        skipDuplicates: true,
      });
      return claimed.count > 0;
    },
    /** What the notification did, on its event. */
    markEvent: (tx: Prisma.TransactionClient, provider: string, event_id: string, status: OutcomeResult) =>
      tx.providerWebhookEvent.update({ where: { provider_event_id: { provider, event_id } }, data: { status } }),
    transaction: <T>(work: (tx: Prisma.TransactionClient) => Promise<T>) => prisma.$transaction(work, QUEUED),
    /** Claims intents waiting on a polled provider whose next poll is due, the longest-due first (claims.ts). */
    async claimPolls(provider_names: string[], now: Date, limit: number): Promise<PaymentIntent[]> {
      const condition = Prisma.sql`status IN ('requires_action', 'processing') AND provider_name = ANY(${provider_names}::text[])`;
      const ids = await claimDue(prisma, "payment_intents", condition, now, limit);
      return prisma.paymentIntent.findMany({ where: { id: { in: ids } } });
    },
    /** Makes the provider's waiting intent of this transaction due for its next poll now; whether there was one. */
    async pollNow(provider_name: string, provider_transaction_id: string, now: Date): Promise<boolean> {
      const { count } = await prisma.paymentIntent.updateMany({
        where: { provider_name, provider_transaction_id, status: { in: ["requires_action", "processing"] } },
        data: { next_poll_at: now },
      });
      return count > 0;
    },
    /** When the intent is next polled, after `attempts` polls in a row that changed nothing. */
    schedulePoll: (id: string, attempts: number, due: Date) => reschedule(prisma, "payment_intents", id, attempts, due),
    /** Keeps a notification whose processing kept failing; a redelivery of the same event adds to its attempts. */
    async deadLetter(provider: string, event_id: string, raw_body: string, error: string, attempts: number, now: Date) {
      const open = await prisma.webhookDeadLetter.findFirst({ where: { provider, event_id, resolved_at: null } });
      if (open) {
        return prisma.webhookDeadLetter.update({
          where: { id: open.id },
          data: { attempts: open.attempts + attempts, last_error: error, updated_at: now },
        });
      }
      return prisma.webhookDeadLetter.create({
        data: {
          id: newUlid(now.getTime()),
          provider,
          event_id,
          raw_body,
          last_error: error,
          attempts,
          created_at: now,
          updated_at: now,
        },
      });
    },
    openDeadLetters: (limit: number) =>
      prisma.webhookDeadLetter.findMany({ where: { resolved_at: null }, orderBy: { created_at: "asc" }, take: limit }),
    findDeadLetter: (id: string) => prisma.webhookDeadLetter.findUnique({ where: { id } }),
    replayed: (id: string, outcome: { resolved: true } | { resolved: false; error: string }, now: Date) =>
      prisma.webhookDeadLetter.update({
        where: { id },
        data: outcome.resolved
          ? { resolved_at: now, updated_at: now, attempts: { increment: 1 } }
          : { last_error: outcome.error, updated_at: now, attempts: { increment: 1 } },
      }),
  };
}

import { AppError, newUlid } from "@pos-cloud/common";
import type { PrismaClient } from "../../generated/prisma/client";
import { appendInternalEvent } from "../outbox/outbox.repository";
import { transitionWithin } from "../payment-intents/payment-intent.repository";
import type { ProviderNotification } from "../providers/webhook-notification";
import { outcomeTransition, type ProviderOutcome } from "./provider-outcome";

export type ProviderEventRepository = ReturnType<typeof providerEventRepository>;

/** What became of a notification or a poll: it moved the intent, or it was already known or out of date. */
export type OutcomeResult = "applied" | "duplicate" | "stale" | "pending";

export const noIntent = (provider_transaction_id: string) =>
  new AppError("not_found", `no payment intent has provider transaction ${provider_transaction_id}`);

export function providerEventRepository(prisma: PrismaClient) {
  return {
    /**
     * Applies a notification in one transaction: its event id claimed (a second delivery finds it and changes
     * nothing), `provider_webhook.received` recorded, and the intent moved with its event and ledger row. An
     * unknown transaction throws, so nothing is claimed and a retry or replay can still apply it.
     */
    applyNotification: (notification: ProviderNotification, now: Date) =>
      prisma.$transaction(async (tx): Promise<OutcomeResult> => {
        const { provider, event_id, provider_transaction_id } = notification;
        const claimed = await tx.providerWebhookEvent.createMany({
          data: [{ provider, event_id, provider_transaction_id, status: "received", received_at: now }],
          skipDuplicates: true,
        });
        if (claimed.count === 0) return "duplicate";
        const intent = await tx.paymentIntent.findUnique({ where: { provider_transaction_id } });
        if (!intent || intent.provider_name !== provider) throw noIntent(provider_transaction_id);
        await appendInternalEvent(
          tx,
          "provider_webhook.received",
          { type: "provider_webhook", id: `${provider}:${event_id}` },
          { provider_webhook: { ...notification, payment_intent_id: intent.id } },
          now,
        );
        const transition = outcomeTransition(notification, now);
        const moved = transition
          ? await transitionWithin(tx, intent.id, transition.from, transition.change, transition.event, now)
          : null;
        const result: OutcomeResult = moved ? "applied" : transition ? "stale" : "pending";
        await tx.providerWebhookEvent.update({
          where: { provider_event_id: { provider, event_id } },
          data: { status: result },
        });
        return result;
      }),
    /** A polled status, with the same transition as a webhook's. */
    applyPolled: (payment_intent_id: string, outcome: ProviderOutcome, now: Date) =>
      prisma.$transaction(async (tx): Promise<OutcomeResult> => {
        const transition = outcomeTransition(outcome, now);
        if (!transition) return "pending";
        const moved = await transitionWithin(
          tx,
          payment_intent_id,
          transition.from,
          transition.change,
          transition.event,
          now,
        );
        return moved ? "applied" : "stale";
      }),
    /** Intents waiting on a polled provider, the longest-waiting first. */
    awaitingPoll: (provider_names: string[], limit: number) =>
      prisma.paymentIntent.findMany({
        where: { status: { in: ["requires_action", "processing"] }, provider_name: { in: provider_names } },
        orderBy: { updated_at: "asc" },
        take: limit,
      }),
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

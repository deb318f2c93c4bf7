import { AppError, type Caller, invalidField } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { Refund } from "../../generated/prisma/client";
import type { IdempotencyRequest, IdempotencyService } from "../idempotency/idempotency.service";
import { partnerIdOf } from "../partners/partner-caller";
import { parseAmount } from "../payment-intents/payment-intent.input";
import type { ProviderCredentialStore } from "../providers/provider-credentials";
import type { ProviderDirectory } from "../providers/provider-directory";
import type { RefundRepository } from "./refund.repository";

export type RefundService = ReturnType<typeof refundService>;

const MAX_REASON = 255;
/** A provider refund still pending after this long lost its caller; the sweep asks the provider again. */
export const STALE_REFUND_MS = 60_000;
const SWEEP_BATCH = 50;

function parseRefundInput(input: unknown): { amount: number | null; reason: string | null } {
  const body = (input && typeof input === "object" && !Array.isArray(input) ? input : {}) as Record<string, unknown>;
  const amount = body.amount === undefined || body.amount === null ? null : parseAmount(body.amount);
  const reason = body.reason ?? null;
  if (reason !== null && (typeof reason !== "string" || reason.length > MAX_REASON)) {
    throw invalidField("reason", "string", `reason must be a string of at most ${MAX_REASON} characters`);
  }
  return { amount, reason };
}

export function refundService(deps: {
  refunds: RefundRepository;
  idempotency: IdempotencyService;
  providers: ProviderDirectory;
  credentials: ProviderCredentialStore;
  clock: Clock;
}) {
  const { refunds, idempotency, providers, credentials, clock } = deps;
  return {
    /**
     * Refunds all or part of a succeeded intent. A QR payment is refunded at its provider (the refund id is the
     * provider's idempotency key, so a retried call cannot refund twice); card and cash refunds happen outside the
     * gateway and are only recorded.
     */
    async refund(caller: Caller, id: string, input: unknown, request?: IdempotencyRequest | null) {
      const client_partner_id = partnerIdOf(caller);
      return idempotency.run<{ refund: Refund }>(client_partner_id, request, async (complete) => {
        const parsed = parseRefundInput(input);
        const found = await refunds.findIntent(id, client_partner_id);
        if (!found) throw new AppError("not_found", "payment intent not found");
        const viaProvider = found.processing_mode === "pgw_processed" && found.provider_transaction_id !== null;
        // Credentials first: a store without its provider configuration changes nothing.
        const provider = viaProvider ? providers.get(found.provider_name!) : null;
        const storeCredentials = provider ? await credentials.forStore(found.store_id, provider.name) : null;
        const keep = (tx: Parameters<typeof complete>[0], refund: Refund) => complete(tx, { refund });
        const { refund, intent } = await refunds.begin(
          { payment_intent_id: id, client_partner_id, ...parsed, viaProvider },
          clock(),
          keep,
        );
        if (!provider || !storeCredentials) return { refund };
        try {
          const answer = await provider.refundPayment(
            {
              provider_transaction_id: intent.provider_transaction_id!,
              amount: refund.amount,
              idempotency_key: refund.id,
            },
            storeCredentials,
          );
          return {
            refund: await refunds.settle(refund, { provider_refund_id: answer.provider_refund_id }, clock(), keep),
          };
        } catch (error) {
          const failure = error instanceof AppError ? error : new AppError("bad_gateway", "the provider refund failed");
          await refunds.settle(
            refund,
            { failure_code: failure.code, failure_message: failure.message },
            clock(),
            async () => {},
          );
          throw failure;
        }
      });
    },
    /**
     * Settles provider refunds whose request died between the provider call and its answer being written, which
     * would leave the intent in cancelling. The refund id is the provider's idempotency key, so asking again returns
     * the refund made the first time instead of refunding twice. Unreachable providers are left for the next sweep.
     */
    async resumePending(): Promise<number> {
      const now = clock();
      let settled = 0;
      for (const refund of await refunds.stalePending(new Date(now.getTime() - STALE_REFUND_MS), SWEEP_BATCH)) {
        const intent = await refunds.findIntentById(refund.payment_intent_id);
        if (!intent?.provider_name || !intent.provider_transaction_id) continue;
        try {
          const provider = providers.get(intent.provider_name);
          const answer = await provider.refundPayment(
            {
              provider_transaction_id: intent.provider_transaction_id,
              amount: refund.amount,
              idempotency_key: refund.id,
            },
            await credentials.forStore(intent.store_id, provider.name),
          );
          await refunds.settle(refund, { provider_refund_id: answer.provider_refund_id }, clock(), async () => {});
          settled++;
        } catch (error) {
          if (!(error instanceof AppError) || error.code === "bad_gateway") continue;
          await refunds.settle(
            refund,
            { failure_code: error.code, failure_message: error.message },
            clock(),
            async () => {},
          );
          settled++;
        }
      }
      return settled;
    },
    async listForIntent(caller: Caller, id: string) {
      const found = await refunds.findIntent(id, partnerIdOf(caller));
      if (!found) throw new AppError("not_found", "payment intent not found");
      return refunds.listForIntent(id);
    },
  };
}

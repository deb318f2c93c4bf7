import { AppError, createStep } from "@pos-cloud/common";
import type { Clock } from "../../../clock";
import type { PaymentIntent, Refund } from "../../../generated/prisma/client";
import type { PaymentProvider, ProviderCredentials } from "../../providers";
import type { RefundRepository } from "../refund.repository";
import { beginRefund, type RefundRequest, settleRefund, type WithinRefund } from "../refund-recording.service";

/** For a refund settled outside a request: no idempotency record to complete. */
export const noRecord: WithinRefund = async () => {};

/** A pending refund to ask its provider for, and what to complete with its answer. */
export interface ProviderRefund {
  refund: Refund;
  intent: PaymentIntent;
  provider: PaymentProvider;
  credentials: ProviderCredentials;
  within: WithinRefund;
}

/** What the provider threw, as the refund's failure: anything but its own refusal is `bad_gateway`. */
const providerFailure = (error: unknown) =>
  error instanceof AppError ? error : new AppError("bad_gateway", "the provider refund failed");

/**
 * The steps of the gateway's refunds (Medusa's `core-flows` steps), each defined once: the partner's refund
 * (`refundPaymentIntent`) runs them as a workflow, the sweep and the late payment's refund ask the provider with them.
 */
export function refundSteps({ refunds, clock }: { refunds: RefundRepository; clock: Clock }) {
  const failRefund = createStep("fail-refund", ({ refund, failure }: { refund: Refund; failure: AppError }) =>
    settleRefund(refunds, refund, { failure_code: failure.code, failure_message: failure.message }, clock(), noRecord),
  );
  return {
    failRefund,
    /**
     * Records the refund (`beginRefund`). Undone, when its provider then fails, by settling it failed, which returns
     * the intent to succeeded.
     */
    recordRefund: createStep(
      "record-refund",
      ({ request, at, within }: { request: RefundRequest; at: Date; within: WithinRefund }) =>
        beginRefund(refunds, request, at, within),
      ({ refund }, _, { error }) => failRefund.invoke({ refund, failure: providerFailure(error) }),
    ),
    /**
     * Asks the provider for a pending refund and writes its answer. The refund id is the provider's idempotency key,
     * so asking again returns the refund made the first time instead of refunding twice.
     */
    refundAtProvider: createStep(
      "refund-at-provider",
      async ({ refund, intent, provider, credentials, within }: ProviderRefund) => {
        try {
          const answer = await provider.refundPayment(
            {
              provider_transaction_id: intent.provider_transaction_id!,
              amount: refund.amount,
              idempotency_key: refund.id,
            },
            credentials,
          );
          return await settleRefund(
            refunds,
            refund,
            { provider_refund_id: answer.provider_refund_id },
            clock(),
            within,
          );
        } catch (error) {
          throw providerFailure(error);
        }
      },
    ),
  };
}

export type RefundSteps = ReturnType<typeof refundSteps>;

import { AppError, createStep, createWorkflow, invalidField, logger, paymentIntentMachine } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { ConfirmAttempt, PaymentIntent } from "../../generated/prisma/client";
import { hashPaymentToken, type PaymentIntentService } from "../payment-intents";
import type {
  CreatedQr,
  CreateQrRequest,
  PaymentProvider,
  ProviderCredentialStore,
  ProviderCredentials,
  ProviderDirectory,
  QrMode,
} from "../providers";
import { confirmMethod, confirmProvider, qrModeOfMethod } from "./confirm.inputs";
import type { ConfirmChange, ConfirmRepository } from "./confirm.repository";

export type ConfirmService = ReturnType<typeof confirmService>;

export interface ConfirmInput {
  payment_token: string;
  payment_method_type?: string | null;
  provider?: string | null;
}

/** The QR mode of each QR method, for an attempt whose method is stored as text. */
export const qrModes: Record<string, QrMode> = qrModeOfMethod;

/**
 * The provider call of an attempt; the attempt id is its idempotency key, so the recovery pass asking again gets the
 * QR made the first time. The QR can be paid no longer than the intent lives.
 */
export const qrRequest = (intent: PaymentIntent, mode: QrMode, attempt_id: string, now: Date): CreateQrRequest => ({
  amount: intent.amount,
  currency: intent.currency,
  reference: intent.id,
  mode,
  expires_in_seconds: Math.max(1, Math.floor((intent.expires_at.getTime() - now.getTime()) / 1000)),
  idempotency_key: attempt_id,
});

/** The intent change of a confirmed QR; its first poll is due at once. */
export const confirmedChange = (method: string, provider: string, qr: string, now: Date): ConfirmChange => ({
  payment_method_type: method,
  provider_name: provider,
  provider_transaction_id: qr,
  next_poll_at: now,
  poll_attempts: 0,
});

/** An intent ready to confirm, with the provider and method the web view chose. */
interface ConfirmRequest {
  intent: PaymentIntent;
  token: string;
  method: string;
  mode: QrMode;
  provider: PaymentProvider;
  storeCredentials: ProviderCredentials;
}

/**
 * The confirm flow (CONTRIBUTING.md, "An external call is recorded before it is made"): the attempt is recorded before
 * the provider is called, so a request that dies after the provider made a QR leaves a row the recovery pass resolves
 * (confirm-recovery.service.ts); the QR is asked for; the outcome is recorded with the intent's move.
 */
function confirmWorkflow(confirmations: ConfirmRepository, clock: Clock) {
  const recordAttempt = createStep("record-attempt", (request: ConfirmRequest) =>
    confirmations.begin(request.intent.id, request.provider.name, request.method, clock()),
  );
  const requestQr = createStep(
    "request-qr",
    async ({ request, attempt }: { request: ConfirmRequest; attempt: ConfirmAttempt }): Promise<CreatedQr> => {
      const { intent, mode, provider, storeCredentials } = request;
      try {
        return await provider.createQr(qrRequest(intent, mode, attempt.id, clock()), storeCredentials);
      } catch (error) {
        // A refusal made no QR; an unreachable provider may have made one, which the recovery pass finds out.
        if (error instanceof AppError && error.code !== "bad_gateway")
          await confirmations.update(attempt.id, { status: "failed", failure_code: error.code }, clock());
        throw error;
      }
    },
    // A concurrent confirm won: the QR made for this one must not stay payable. If it cannot be cancelled now, the
    // attempt stays pending with its QR, for the recovery pass.
    async (qr, { request, attempt }) => {
      const transaction = qr.provider_transaction_id;
      const cancelled = await request.provider.cancelPayment(transaction, request.storeCredentials).then(
        () => true,
        (cancelError: unknown) => {
          logger.warn("could not cancel the QR of a lost confirm", { id: request.intent.id, error: cancelError });
          return false;
        },
      );
      const outcome = cancelled ? { status: "cancelled", failure_code: "lost_race" } : {};
      await confirmations.update(attempt.id, { ...outcome, provider_transaction_id: transaction }, clock());
    },
  );
  const recordOutcome = createStep(
    "record-outcome",
    ({ request, attempt, qr }: { request: ConfirmRequest; attempt: ConfirmAttempt; qr: CreatedQr }) =>
      confirmations.confirm(
        attempt.id,
        request.intent.id,
        hashPaymentToken(request.token),
        confirmedChange(request.method, request.provider.name, qr.provider_transaction_id, clock()),
        clock(),
      ),
  );

  return createWorkflow("confirmPaymentIntent", async (request: ConfirmRequest, run) => {
    const attempt = await run(recordAttempt, request);
    const qr = await run(requestQr, { request, attempt });
    await run(recordOutcome, { request, attempt, qr });
    const { intent, provider } = request;
    return { payment_id: intent.id, qr_content: qr.qr_content, expires_at: qr.expires_at, provider: provider.name };
  });
}

export function confirmService(deps: {
  intents: PaymentIntentService;
  confirmations: ConfirmRepository;
  providers: ProviderDirectory;
  credentials: ProviderCredentialStore;
  clock: Clock;
}) {
  const { intents, confirmations, providers, credentials, clock } = deps;
  const confirmIntent = confirmWorkflow(confirmations, clock);
  return {
    /**
     * Asks the chosen provider for a QR and moves the intent to requires_action (`confirmWorkflow`). When the
     * provider fails, the intent and the token stay as they were, so the web view may retry.
     */
    async confirm(id: string, input: ConfirmInput) {
      const intent = await intents.forConfirm(id, input.payment_token);
      if (intent.status === "cancelled" && intent.failure_code === "expired") {
        throw new AppError("intent_expired", "the payment intent has expired");
      }
      if (intent.processing_mode !== "pgw_processed") {
        throw new AppError("invalid_state", `a ${intent.processing_mode} intent is not confirmed with a QR`, {
          status: intent.status,
          event: "confirm",
        });
      }
      paymentIntentMachine.transition(intent.status, "confirm");
      const chosen = confirmMethod.safeParse(input.payment_method_type ?? intent.payment_method_type);
      const method = chosen.data;
      if (!method || !intent.payment_method_types.includes(method)) {
        throw invalidField(
          "payment_method_type",
          "enum",
          `payment_method_type must be one of ${intent.payment_method_types}`,
        );
      }
      const named = confirmProvider.safeParse(input.provider);
      if (!named.success) throw invalidField("provider", "required", "provider is required");
      const provider = providers.get(named.data);
      const storeCredentials = await credentials.forStore(intent.store_id, provider.name);
      const mode = qrModeOfMethod[method];
      return confirmIntent({ intent, token: input.payment_token, method, mode, provider, storeCredentials });
    },
  };
}

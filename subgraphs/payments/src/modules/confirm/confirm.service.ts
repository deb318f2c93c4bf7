import { AppError, invalidField, logger } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { PaymentIntentService } from "../payment-intents/payment-intent.service";
import { hashPaymentToken } from "../payment-intents/payment-token";
import type { QrMode } from "../providers/provider";
import type { ProviderCredentialStore } from "../providers/provider-credentials";
import type { ProviderDirectory } from "../providers/provider-directory";
import type { ConfirmRepository } from "./confirm.repository";

export type ConfirmService = ReturnType<typeof confirmService>;

export interface ConfirmInput {
  payment_token: string;
  payment_method_type?: string | null;
  provider?: string | null;
}

const qrModes: Record<string, QrMode> = { qr_mpm: "mpm", qr_cpm: "cpm" };

export function confirmService(deps: {
  intents: PaymentIntentService;
  confirmations: ConfirmRepository;
  providers: ProviderDirectory;
  credentials: ProviderCredentialStore;
  clock: Clock;
}) {
  const { intents, confirmations, providers, credentials, clock } = deps;
  return {
    /**
     * Asks the chosen provider for a QR and moves the intent to requires_action. The provider is called before
     * anything is written: when it fails the intent and the token stay as they were, so the web view may retry.
     */
    async confirm(id: string, input: ConfirmInput) {
      const intent = await intents.forConfirm(id, input.payment_token);
      if (intent.status === "cancelled" && intent.failure_code === "expired") {
        throw new AppError("intent_expired", "the payment intent has expired");
      }
      if (intent.processing_mode !== "pgw_processed" || intent.status !== "requires_payment_method") {
        throw new AppError("invalid_state", `a ${intent.status} ${intent.processing_mode} intent cannot be confirmed`, {
          status: intent.status,
        });
      }
      const method = input.payment_method_type ?? intent.payment_method_type;
      const mode = method ? qrModes[method] : undefined;
      if (!method || !mode || !intent.payment_method_types.includes(method)) {
        throw invalidField(
          "payment_method_type",
          "enum",
          `payment_method_type must be one of ${intent.payment_method_types}`,
        );
      }
      if (!input.provider) throw invalidField("provider", "required", "provider is required");
      const provider = providers.get(input.provider);
      const storeCredentials = await credentials.forStore(intent.store_id, provider.name);
      const now = clock();
      const qr = await provider.createQr(
        {
          amount: intent.amount,
          currency: intent.currency,
          reference: intent.id,
          mode,
          expires_in_seconds: Math.max(1, Math.floor((intent.expires_at.getTime() - now.getTime()) / 1000)),
        },
        storeCredentials,
      );
      try {
        await confirmations.confirm(
          id,
          hashPaymentToken(input.payment_token),
          {
            status: "requires_action",
            payment_method_type: method,
            provider_name: provider.name,
            provider_transaction_id: qr.provider_transaction_id,
          },
          clock(),
        );
      } catch (error) {
        // A concurrent confirm won: the QR made for this one must not stay payable.
        await provider.cancelPayment(qr.provider_transaction_id, storeCredentials).catch((cancelError: unknown) => {
          logger.warn("could not cancel the QR of a lost confirm", { id, error: cancelError });
        });
        throw error;
      }
      return { payment_id: intent.id, qr_content: qr.qr_content, expires_at: qr.expires_at, provider: provider.name };
    },
  };
}

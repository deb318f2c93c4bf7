import { idempotencyKeyOf, paymentTokenOf, replayHeaders } from "../gateway-request";
import { runOperation } from "../graphql";
import { RefundPaymentIntentDocument } from "../operations/gateway.generated";
import { ConfirmPaymentIntentDocument } from "../operations/payments.generated";
import type { RestRoute } from "../router";

const field = (fields: unknown, name: string) => {
  const value =
    fields && typeof fields === "object" && !Array.isArray(fields) ? (fields as Record<string, unknown>)[name] : null;
  return typeof value === "string" ? value : null;
};

/** Confirm (web view, payment token) and refund (partner, HMAC): the steps of a payment after its creation. */
export const paymentFlowRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/payment_intents/:id/confirm",
    auth: "payment_token",
    subgraph: "payments",
    async handle(request, execute) {
      const variables = {
        id: request.params.id,
        payment_token: paymentTokenOf(request),
        payment_method_type: field(request.body.fields, "payment_method_type"),
        provider: field(request.body.fields, "provider"),
      };
      const data = await runOperation(execute, ConfirmPaymentIntentDocument, variables, request.caller);
      return { status: 200, body: data.confirmPaymentIntent };
    },
  },
  {
    method: "POST",
    path: "/v1/payment_intents/:id/refund",
    auth: "hmac",
    idempotent: true,
    async handle(request, execute) {
      const variables = {
        id: request.params.id,
        input: request.body.fields,
        idempotency_key: idempotencyKeyOf(request),
      };
      const { refundPaymentIntent: result } = await runOperation(
        execute,
        RefundPaymentIntentDocument,
        variables,
        request.caller,
      );
      return {
        status: 201,
        body: result.refund,
        headers: replayHeaders(result),
      };
    },
  },
];

import { idempotencyKeyOf, paymentTokenOf, replayHeaders } from "../gateway-request";
import { dataOf } from "../graphql";
import type { RestRoute } from "../router";

const field = (fields: unknown, name: string) => {
  const value =
    fields && typeof fields === "object" && !Array.isArray(fields) ? (fields as Record<string, unknown>)[name] : null;
  return typeof value === "string" ? value : null;
};

const refundFields = `id payment_intent_id amount currency reason status provider_refund_id failure_code failure_message
  created_at updated_at`;

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
      const data = dataOf(
        await execute(
          `mutation ConfirmPaymentIntent($id: String!, $payment_token: String!, $payment_method_type: String,
            $provider: String) {
            confirmPaymentIntent(id: $id, payment_token: $payment_token, payment_method_type: $payment_method_type,
              provider: $provider) { payment_id qr_content expires_at provider }
          }`,
          variables,
          request.caller,
        ),
      );
      return { status: 200, body: data.confirmPaymentIntent };
    },
  },
  {
    method: "POST",
    path: "/v1/payment_intents/:id/refund",
    auth: "hmac",
    async handle(request, execute) {
      const variables = {
        id: request.params.id,
        input: request.body.fields,
        idempotency_key: idempotencyKeyOf(request),
      };
      const data = dataOf(
        await execute(
          `mutation RefundPaymentIntent($id: String!, $input: RefundPaymentIntentInput!, $idempotency_key: String) {
            refundPaymentIntent(id: $id, input: $input, idempotency_key: $idempotency_key) {
              refund { ${refundFields} }
              replayed
            }
          }`,
          variables,
          request.caller,
        ),
      );
      const result = data.refundPaymentIntent as { refund: unknown; replayed: boolean };
      return {
        status: 201,
        body: result.refund,
        headers: replayHeaders(result),
      };
    },
  },
];

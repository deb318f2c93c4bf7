import { idempotencyKeyOf, paymentTokenOf, replayHeaders } from "../gateway-request";
import { runOperation } from "../graphql";
import { RefundPaymentIntentDocument } from "../operations/gateway.generated";
import { ConfirmPaymentIntentDocument } from "../operations/payments.generated";
import type { RestRequest, RestRoute } from "../router";

const field = (fields: unknown, name: string) => {
  const value =
    fields && typeof fields === "object" && !Array.isArray(fields) ? (fields as Record<string, unknown>)[name] : null;
  return typeof value === "string" ? value : null;
};

const confirmation = (request: RestRequest) => ({
  id: request.params.id,
  payment_token: paymentTokenOf(request),
  payment_method_type: field(request.body.fields, "payment_method_type"),
  provider: field(request.body.fields, "provider"),
});
const refund = (request: RestRequest) => ({
  id: request.params.id,
  input: request.body.fields,
  idempotency_key: idempotencyKeyOf(request),
});

/** Confirm (web view, payment token) and refund (partner, HMAC): the steps of a payment after its creation. */
export const paymentFlowRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/payment_intents/:id/confirm",
    auth: "payment_token",
    subgraph: "payments",
    doc: {
      operation: ConfirmPaymentIntentDocument,
      field: "confirmPaymentIntent",
      status: 200,
      variables: confirmation,
    },
    async handle(request, execute) {
      const data = await runOperation(execute, ConfirmPaymentIntentDocument, confirmation(request), request.caller);
      return { status: 200, body: data.confirmPaymentIntent };
    },
  },
  {
    method: "POST",
    path: "/v1/payment_intents/:id/refund",
    auth: "hmac",
    idempotent: true,
    actsOn: { kind: "intent", param: "id" },
    doc: {
      operation: RefundPaymentIntentDocument,
      field: "refundPaymentIntent",
      status: 201,
      variables: refund,
      result: "refund",
    },
    async handle(request, execute) {
      const { refundPaymentIntent: result } = await runOperation(
        execute,
        RefundPaymentIntentDocument,
        refund(request),
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

import { idempotencyKeyOf, paymentTokenOf, replayHeaders } from "../gateway-request";
import { dataOf } from "../graphql";
import { operationRoute } from "../operation-route";
import { pageParams } from "../params";
import type { RestResponse, RestRoute } from "../router";

const intentFields = `id merchant_id store_id client_partner_id merchant_ref_id merchant_store_id merchant_terminal_id
  order_id amount currency payment_method_types payment_method_type processing_mode status provider_name
  provider_transaction_id failure_code failure_message description metadata captured_at created_at updated_at
  expires_at`;

const createMutation = `mutation CreatePaymentIntent($input: CreatePaymentIntentInput!, $idempotency_key: String) {
  createPaymentIntent(input: $input, idempotency_key: $idempotency_key) {
    payment_intent { id status amount currency payment_method_types merchant_ref_id merchant_store_id created_at
      expires_at }
    payment_token { token payment_intent_id expires_in }
    replayed
  }
}`;

const captureMutation = `mutation CapturePaymentIntent($id: String!, $amount: Int, $idempotency_key: String) {
  capturePaymentIntent(id: $id, amount: $amount, idempotency_key: $idempotency_key) {
    payment_intent { id status amount currency }
    replayed
  }
}`;

type Result = { payment_intent: Record<string, unknown>; payment_token?: unknown; replayed: boolean };

const bodyField = (fields: unknown, name: string) =>
  fields && typeof fields === "object" && !Array.isArray(fields)
    ? (fields as Record<string, unknown>)[name]
    : undefined;

export const paymentIntentRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/payment_intents",
    auth: "hmac",
    async handle(request, execute): Promise<RestResponse> {
      const variables = { input: request.body.fields, idempotency_key: idempotencyKeyOf(request) };
      const result = dataOf(await execute(createMutation, variables, request.caller)).createPaymentIntent as Result;
      return {
        status: 201,
        body: { ...result.payment_intent, payment_token: result.payment_token },
        headers: replayHeaders(result),
      };
    },
  },
  operationRoute(
    "GET",
    "/v1/payment_intents",
    "paymentIntents",
    `query PaymentIntents($merchant_store_id: String, $status: PaymentIntentStatus, $limit: Int, $offset: Int) {
      paymentIntents(merchant_store_id: $merchant_store_id, status: $status, limit: $limit, offset: $offset) {
        nodes { ${intentFields} }
      }
    }`,
    ({ query }) => ({
      merchant_store_id: query.get("merchant_store_id"),
      status: query.get("status"),
      ...pageParams(query),
    }),
    { auth: "hmac", page: true },
  ),
  operationRoute(
    "GET",
    "/v1/payment_intents/:id",
    "paymentIntentByToken",
    `query PaymentIntent($id: String!, $payment_token: String!) {
      paymentIntentByToken(id: $id, payment_token: $payment_token) {
        id status amount currency payment_method_types merchant_ref_id failure_code failure_message created_at
        expires_at
      }
    }`,
    (request) => ({ id: request.params.id, payment_token: paymentTokenOf(request) }),
    { auth: "payment_token", subgraph: "payments" },
  ),
  operationRoute(
    "POST",
    "/v1/payment_intents/:id/cancel",
    "cancelPaymentIntent",
    `mutation CancelPaymentIntent($id: String!, $payment_token: String!) {
      cancelPaymentIntent(id: $id, payment_token: $payment_token) { id status }
    }`,
    (request) => ({ id: request.params.id, payment_token: paymentTokenOf(request) }),
    { auth: "payment_token", subgraph: "payments" },
  ),
  {
    method: "POST",
    path: "/v1/payment_intents/:id/capture",
    auth: "hmac",
    async handle(request, execute) {
      const variables = {
        id: request.params.id,
        amount: bodyField(request.body.fields, "amount"),
        idempotency_key: idempotencyKeyOf(request),
      };
      const result = dataOf(await execute(captureMutation, variables, request.caller)).capturePaymentIntent as Result;
      return { status: 200, body: result.payment_intent, headers: replayHeaders(result) };
    },
  },
];

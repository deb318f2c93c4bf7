import { idempotencyKeyOf, paymentTokenOf, replayHeaders } from "../gateway-request";
import { runOperation } from "../graphql";
import { operationRoute } from "../operation-route";
import {
  CapturePaymentIntentDocument,
  CreatePaymentIntentDocument,
  PaymentIntentsDocument,
} from "../operations/gateway.generated";
import { CancelPaymentIntentDocument, PaymentIntentByTokenDocument } from "../operations/payments.generated";
import { bodyField, pageParams } from "../params";
import type { RestRequest, RestResponse, RestRoute } from "../router";

const creation = (request: RestRequest) => ({ input: request.body.fields, idempotency_key: idempotencyKeyOf(request) });
const capture = (request: RestRequest) => ({
  id: request.params.id,
  input: {
    amount: bodyField(request.body.fields, "amount"),
    amount_to_capture: bodyField(request.body.fields, "amount_to_capture"),
  },
  idempotency_key: idempotencyKeyOf(request),
});

export const paymentIntentRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/payment_intents",
    auth: "hmac",
    idempotent: true,
    doc: {
      operation: CreatePaymentIntentDocument,
      field: "createPaymentIntent",
      status: 201,
      variables: creation,
      result: "payment_intent",
      merge: ["payment_token"],
    },
    async handle(request, execute): Promise<RestResponse> {
      const { createPaymentIntent: result } = await runOperation(
        execute,
        CreatePaymentIntentDocument,
        creation(request),
        request.caller,
      );
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
    PaymentIntentsDocument,
    ({ query }) => ({
      merchant_store_id: query.get("merchant_store_id"),
      status: query.get("status"),
      after: query.get("after"),
      updated_since: query.get("updated_since"),
      ...pageParams(query),
    }),
    { auth: "hmac", page: true },
  ),
  operationRoute(
    "GET",
    "/v1/payment_intents/:id",
    "paymentIntentByToken",
    PaymentIntentByTokenDocument,
    (request) => ({ id: request.params.id, payment_token: paymentTokenOf(request) }),
    { auth: "payment_token", subgraph: "payments" },
  ),
  operationRoute(
    "POST",
    "/v1/payment_intents/:id/cancel",
    "cancelPaymentIntent",
    CancelPaymentIntentDocument,
    (request) => ({ id: request.params.id, payment_token: paymentTokenOf(request) }),
    { auth: "payment_token", subgraph: "payments" },
  ),
  {
    method: "POST",
    path: "/v1/payment_intents/:id/capture",
    auth: "hmac",
    idempotent: true,
    actsOn: { kind: "intent", param: "id" },
    doc: {
      operation: CapturePaymentIntentDocument,
      field: "capturePaymentIntent",
      status: 200,
      variables: capture,
      result: "payment_intent",
    },
    async handle(request, execute) {
      const { capturePaymentIntent: result } = await runOperation(
        execute,
        CapturePaymentIntentDocument,
        capture(request),
        request.caller,
      );
      return { status: 200, body: result.payment_intent, headers: replayHeaders(result) };
    },
  },
];

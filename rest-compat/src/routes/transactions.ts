import { paymentTokenOf } from "../gateway-request";
import { operationRoute } from "../operation-route";
import type { RestRoute } from "../router";

const transactionFields = `id payment_intent_id type status amount currency provider_name provider_transaction_id
  provider_refund_id refund_id failure_code failure_message created_at`;

/** The gateway's ledger: an intent's rows for its web view, one row for the partner that owns it. */
export const transactionRoutes: RestRoute[] = [
  operationRoute(
    "GET",
    "/v1/payment_intents/:id/transactions",
    "paymentIntentTransactions",
    `query PaymentIntentTransactions($id: String!, $payment_token: String!) {
      paymentIntentTransactions(id: $id, payment_token: $payment_token) { ${transactionFields} }
    }`,
    (request) => ({ id: request.params.id, payment_token: paymentTokenOf(request) }),
    { auth: "payment_token", subgraph: "payments" },
  ),
  operationRoute(
    "GET",
    "/v1/transactions/:id",
    "transaction",
    `query Transaction($id: String!) { transaction(id: $id) { ${transactionFields} } }`,
    (request) => ({ id: request.params.id }),
    { auth: "hmac" },
  ),
];

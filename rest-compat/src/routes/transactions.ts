import { paymentTokenOf } from "../gateway-request";
import { dataOf } from "../graphql";
import type { RestRoute } from "../router";

const transactionFields = `id payment_intent_id type status amount currency provider_name provider_transaction_id
  provider_refund_id refund_id failure_code failure_message created_at`;

/** The gateway's ledger: an intent's rows for its web view, one row for the partner that owns it. */
export const transactionRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/v1/payment_intents/:id/transactions",
    auth: "payment_token",
    async handle(request, execute) {
      const data = dataOf(
        await execute(
          `query PaymentIntentTransactions($id: String!, $payment_token: String!) {
            paymentIntentTransactions(id: $id, payment_token: $payment_token) { ${transactionFields} }
          }`,
          { id: request.params.id, payment_token: paymentTokenOf(request) },
          request.caller,
        ),
      );
      return { status: 200, body: data.paymentIntentTransactions };
    },
  },
  {
    method: "GET",
    path: "/v1/transactions/:id",
    auth: "hmac",
    async handle(request, execute) {
      const data = dataOf(
        await execute(
          `query Transaction($id: String!) { transaction(id: $id) { ${transactionFields} } }`,
          { id: request.params.id },
          request.caller,
        ),
      );
      return { status: 200, body: data.transaction };
    },
  },
];

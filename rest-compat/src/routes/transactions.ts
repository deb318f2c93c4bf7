import { paymentTokenOf } from "../gateway-request";
import { operationRoute } from "../operation-route";
import { TransactionDocument } from "../operations/gateway.generated";
import { PaymentIntentTransactionsDocument } from "../operations/payments.generated";
import type { RestRoute } from "../router";

/** The gateway's ledger: an intent's rows for its web view, one row for the partner that owns it. */
export const transactionRoutes: RestRoute[] = [
  operationRoute(
    "GET",
    "/v1/payment_intents/:id/transactions",
    "paymentIntentTransactions",
    PaymentIntentTransactionsDocument,
    (request) => ({ id: request.params.id, payment_token: paymentTokenOf(request) }),
    { auth: "payment_token", subgraph: "payments" },
  ),
  operationRoute(
    "GET",
    "/v1/transactions/:id",
    "transaction",
    TransactionDocument,
    (request) => ({ id: request.params.id }),
    { auth: "hmac", actsOn: { kind: "transaction", param: "id" } },
  ),
];

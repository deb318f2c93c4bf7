import { apiKeyWebhookRoutes } from "./routes/api-key-webhook";
import { appUpdateRoutes } from "./routes/app-updates";
import { auditRoutes } from "./routes/audit";
import { authRoutes } from "./routes/auth";
import { deviceTokenRoutes } from "./routes/device-token";
import { deviceRoutes } from "./routes/devices";
import { jwksRoutes } from "./routes/jwks";
import { partnerRoutes } from "./routes/partners";
import { paymentFlowRoutes } from "./routes/payment-flow";
import { paymentIntentRoutes } from "./routes/payment-intents";
import { posAccountingExportRoutes } from "./routes/pos-accounting-export";
import { posBillRoutes } from "./routes/pos-bills";
import { posCustomerRoutes } from "./routes/pos-customers";
import { posOrderRoutes } from "./routes/pos-orders";
import { posPaymentRoutes } from "./routes/pos-payments";
import { posReceiptRoutes } from "./routes/pos-receipts";
import { posSettlementRoutes } from "./routes/pos-settlements";
import { reconciliationRoutes } from "./routes/reconciliation";
import { syncRoutes } from "./routes/sync";
import { tenantRoutes } from "./routes/tenants";
import { transactionRoutes } from "./routes/transactions";
import { userRoutes } from "./routes/users";
import { webhookDeliveryRoutes } from "./routes/webhook-deliveries";
import { webhookRoutes } from "./routes/webhooks";

export * from "./gateway-front";
export { paymentTokenOf } from "./gateway-request";
export * from "./graphql";
export * from "./hmac";
export * from "./http";
export * from "./openapi";
export { assertUtf8Form } from "./params";
export * from "./rate-limit";
export * from "./router";
export * from "./seen-signatures";

/** Every REST endpoint of the spec, each mapped onto one GraphQL operation of the supergraph. */
export const restRoutes = [
  ...tenantRoutes,
  ...deviceRoutes,
  ...deviceTokenRoutes,
  ...appUpdateRoutes,
  ...authRoutes,
  ...jwksRoutes,
  ...userRoutes,
  ...partnerRoutes,
  ...auditRoutes,
  ...paymentIntentRoutes,
  ...syncRoutes,
  ...paymentFlowRoutes,
  ...transactionRoutes,
  ...webhookRoutes,
  ...apiKeyWebhookRoutes,
  ...webhookDeliveryRoutes,
  ...posOrderRoutes,
  ...posBillRoutes,
  ...posPaymentRoutes,
  ...posReceiptRoutes,
  ...posSettlementRoutes,
  ...reconciliationRoutes,
  ...posAccountingExportRoutes,
  ...posCustomerRoutes,
];

import { runOperation } from "../graphql";
import { ReceiveProviderWebhookDocument } from "../operations/payments.generated";
import type { RestRequest, RestRoute } from "../router";

const notification = (request: RestRequest) => ({
  provider: request.params.provider,
  raw_body: request.body.raw.toString("base64"),
  signatures: Object.fromEntries(
    Object.entries(request.headers).filter(([name, value]) => name.endsWith("-signature") && typeof value === "string"),
  ),
});

/**
 * Inbound provider notifications. No partner authentication: the provider's signature is the credential, checked
 * by the payments service over the raw bytes, which travel base64-encoded so not a byte changes on the way (a provider
 * that signs none, PayPay, only prompts a read of its API). Every
 * `*-signature` header is passed on; the service knows which one its provider uses. The operation is not in the
 * public graph: raw bytes and signature headers are HTTP details, and `/v1` counts this path per IP.
 */
export const webhookRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/webhooks/:provider",
    subgraph: "payments",
    doc: {
      operation: ReceiveProviderWebhookDocument,
      field: "receiveProviderWebhook",
      status: 200,
      variables: notification,
      anonymous: true,
    },
    async handle(request, execute) {
      const data = await runOperation(execute, ReceiveProviderWebhookDocument, notification(request), request.caller);
      return { status: 200, body: data.receiveProviderWebhook };
    },
  },
];

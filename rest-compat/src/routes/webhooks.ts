import { runOperation } from "../graphql";
import { ReceiveProviderWebhookDocument } from "../operations/payments.generated";
import type { RestRoute } from "../router";

/**
 * Inbound provider notifications. No partner authentication: the provider's signature is the credential, checked
 * by the payments service over the raw bytes, which travel base64-encoded so not a byte changes on the way. Every
 * `*-signature` header is passed on; the service knows which one its provider uses. The operation is not in the
 * public graph: raw bytes and signature headers are HTTP details, and `/v1` counts this path per IP.
 */
export const webhookRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/v1/webhooks/:provider",
    subgraph: "payments",
    async handle(request, execute) {
      const signatures = Object.fromEntries(
        Object.entries(request.headers).filter(
          ([name, value]) => name.endsWith("-signature") && typeof value === "string",
        ),
      );
      const data = await runOperation(
        execute,
        ReceiveProviderWebhookDocument,
        { provider: request.params.provider, raw_body: request.body.raw.toString("base64"), signatures },
        request.caller,
      );
      return { status: 200, body: data.receiveProviderWebhook };
    },
  },
];

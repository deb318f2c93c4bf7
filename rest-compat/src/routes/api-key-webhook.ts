import { signingClientId } from "../hmac";
import { operationRoute } from "../operation-route";
import {
  ApiKeyWebhookDocument,
  DeleteApiKeyWebhookDocument,
  RotateApiKeyDocument,
  RotateApiKeyWebhookSecretDocument,
  SetApiKeyWebhookDocument,
} from "../operations/gateway.generated";
import type { RestRequest, RestRoute } from "../router";

/** The API key a partner manages is the one it signs the request with. */
export const signingKey = (request: RestRequest) => ({ client_id: signingClientId(request.headers.authorization) });

/** A body field, when the body is an object. */
export const fieldOf = ({ body }: RestRequest, name: string) => {
  const fields = body.fields;
  return fields && typeof fields === "object" && !Array.isArray(fields)
    ? (fields as Record<string, unknown>)[name]
    : undefined;
};

/** A partner's own webhook, over HMAC like every `/v1` call; admins use the same operations on `/graphql`. */
export const apiKeyWebhookRoutes: RestRoute[] = [
  operationRoute(
    "PUT",
    "/v1/api_key/webhook",
    "setApiKeyWebhook",
    SetApiKeyWebhookDocument,
    (request) => ({
      input: {
        ...signingKey(request),
        webhook_url: fieldOf(request, "webhook_url"),
        auto_redelivery: fieldOf(request, "auto_redelivery"),
      },
    }),
    { auth: "hmac" },
  ),
  operationRoute("GET", "/v1/api_key/webhook", "apiKeyWebhook", ApiKeyWebhookDocument, signingKey, { auth: "hmac" }),
  operationRoute("DELETE", "/v1/api_key/webhook", "deleteApiKeyWebhook", DeleteApiKeyWebhookDocument, signingKey, {
    auth: "hmac",
    status: 204,
  }),
  operationRoute(
    "POST",
    "/v1/api_key/webhook/secret",
    "rotateApiKeyWebhookSecret",
    RotateApiKeyWebhookSecretDocument,
    signingKey,
    { auth: "hmac" },
  ),
  // The partner's next key of the client_id it signs with; the signing key keeps working for 7 more days at most.
  operationRoute("POST", "/v1/api_key/rotate", "rotateApiKey", RotateApiKeyDocument, signingKey, {
    auth: "hmac",
    status: 201,
  }),
];

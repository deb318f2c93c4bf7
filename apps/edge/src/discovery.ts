import type { IncomingMessage } from "node:http";
import { DEVICE_SCOPES } from "@pos-cloud/common";

export const DISCOVERY_PATH = "/.well-known/oauth-authorization-server";

/**
 * The device token endpoint described for OAuth clients (RFC 8414), so a terminal's library configures itself from
 * the platform's address and the device's key alone. The issuer is the platform's address as clients reach it
 * (`PUBLIC_URL`, else the request's Host): client libraries check it against the address they discovered from, and
 * send it as their client assertion's `aud`, which the token endpoint accepts.
 */
export function authorizationServerMetadata(req: IncomingMessage, publicUrl: string | undefined) {
  const forwarded = req.headers["x-forwarded-proto"];
  const scheme = forwarded === "https" ? "https" : "http";
  const issuer = (publicUrl ?? `${scheme}://${req.headers.host}`).replace(/\/$/, "");
  return {
    issuer,
    token_endpoint: `${issuer}/api/v1/auth/device/token`,
    jwks_uri: `${issuer}/api/v1/jwks/device`,
    grant_types_supported: ["client_credentials"],
    token_endpoint_auth_methods_supported: ["private_key_jwt"],
    token_endpoint_auth_signing_alg_values_supported: ["ES256"],
    scopes_supported: [...DEVICE_SCOPES],
    // No authorization endpoint: terminals take tokens with their own key, never through a browser.
    response_types_supported: [],
  };
}

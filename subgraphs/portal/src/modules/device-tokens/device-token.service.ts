import { AppError, DEVICE_SCOPES, DEVICE_TOKEN_ISSUER } from "@pos-cloud/common";
import { decodeJwt, errors, importJWK, type JWK, jwtVerify } from "jose";
import type { DeviceService } from "../devices";
import type { SigningKeyService } from "../keys";
import { storeClosedReason } from "../tenants";
import type { DeviceTokenRepository } from "./device-token.repository";

export type DeviceTokenService = ReturnType<typeof deviceTokenService>;

export const DEVICE_TOKEN_LIFETIME_SECONDS = 90;
export const ASSERTION_MAX_LIFETIME_SECONDS = 60;
/** Clock skew tolerated between a terminal and the portal. */
const SKEW_SECONDS = 5;
export const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

export type OAuthError = "invalid_request" | "invalid_client" | "invalid_grant" | "unsupported_grant_type";

/**
 * The token endpoint answers in OAuth's error format (RFC 6749 §5.2); the REST face reads `details.error`.
 * invalid_client is 401, the others 400.
 */
export const oauthError = (error: OAuthError, description: string) =>
  new AppError(error === "invalid_client" ? "unauthorized" : "invalid_request", description, { error });

export interface TokenRequest {
  grant_type?: string | null;
  client_assertion_type?: string | null;
  client_assertion?: string | null;
  client_id?: string | null;
}

export function deviceTokenService(
  tokens: DeviceTokenRepository,
  devices: DeviceService,
  signingKeys: SigningKeyService,
  /** Audiences the assertion may name: the issuer identifier and the token endpoint's public URLs. */
  audiences: () => string[],
  clock: () => Date,
) {
  return {
    async issue(request: TokenRequest) {
      if (request.grant_type != null && request.grant_type !== "client_credentials") {
        throw oauthError("unsupported_grant_type", "grant_type must be client_credentials");
      }
      if (request.client_assertion_type != null && request.client_assertion_type !== JWT_BEARER) {
        throw oauthError("invalid_request", `client_assertion_type must be ${JWT_BEARER}`);
      }
      if (!request.client_assertion) throw oauthError("invalid_request", "client_assertion is required");
      let claimed: string | undefined;
      try {
        const claims = decodeJwt(request.client_assertion);
        if (typeof claims.iss !== "string" || claims.iss !== claims.sub) throw new Error();
        claimed = claims.iss;
      } catch {
        throw oauthError("invalid_client", "the client assertion is not a JWT whose iss and sub name the client");
      }
      if (request.client_id != null && request.client_id !== claimed) {
        throw oauthError("invalid_client", "client_id and the assertion's issuer differ");
      }
      const device = await devices.findByClientId(claimed);
      if (!device?.public_key_jwk) throw oauthError("invalid_client", "unknown client");

      const now = clock();
      let payload: Awaited<ReturnType<typeof jwtVerify>>["payload"];
      try {
        const key = await importJWK(device.public_key_jwk as JWK, "ES256");
        ({ payload } = await jwtVerify(request.client_assertion, key, {
          algorithms: ["ES256"],
          issuer: claimed,
          subject: claimed,
          audience: audiences(),
          requiredClaims: ["exp", "iat", "jti"],
          currentDate: now,
          clockTolerance: SKEW_SECONDS,
        }));
      } catch (error) {
        const reason = error instanceof errors.JOSEError ? error.message : "verification failed";
        throw oauthError("invalid_client", `the client assertion was refused: ${reason}`);
      }
      const { iat, exp, jti } = payload as { iat: number; exp: number; jti: string };
      if (exp - iat > ASSERTION_MAX_LIFETIME_SECONDS) {
        throw oauthError("invalid_client", `the client assertion may live at most ${ASSERTION_MAX_LIFETIME_SECONDS} s`);
      }
      if (iat > now.getTime() / 1000 + SKEW_SECONDS)
        throw oauthError("invalid_client", "the assertion is from the future");
      if (device.status !== "active") throw oauthError("invalid_client", `the device is ${device.status}`);
      // A terminal works for its store: an inactive store or merchant gets no token, as a suspended device does.
      const closed = storeClosedReason(device.store);
      if (closed) throw oauthError("invalid_client", `the device's ${closed}`);
      if (!(await tokens.useAssertion(claimed, jti, new Date((exp + SKEW_SECONDS) * 1000), now))) {
        throw oauthError("invalid_grant", "this client assertion (jti) was already used");
      }
      await tokens.touch(device.id, now);
      const access_token = await signingKeys.sign(
        "device",
        {
          iss: DEVICE_TOKEN_ISSUER,
          sub: device.id,
          device_sn: device.serial_number,
          merchant_id: device.merchant_id,
          store_id: device.store_id,
          scope: DEVICE_SCOPES,
        },
        DEVICE_TOKEN_LIFETIME_SECONDS,
      );
      return { access_token, token_type: "Bearer", expires_in: DEVICE_TOKEN_LIFETIME_SECONDS };
    },
  };
}

/**
 * Issuers of the platform's bearer JWTs. The portal signs with them and the edge accepts a token only with the
 * issuer of its kind, so a device token can never pass as a human one or the other way round.
 */
export const HUMAN_TOKEN_ISSUER = "pos-cloud-human";
export const DEVICE_TOKEN_ISSUER = "pos-cloud-device";

/**
 * The `aud` of every access token the portal signs: the platform's API identifier (`API_AUDIENCE`), which the edge
 * requires, so a token minted for another resource server with the same keys is not taken here.
 */
export const DEFAULT_API_AUDIENCE = "pos-cloud-api";

/** What a device may do with its token. app:update covers the update check and install confirmation. */
export const DEVICE_SCOPES = ["order:create", "bill:create", "payment:create", "app:update"];

/** Human access tokens live 15 minutes (the spec's Limits). */
export const HUMAN_TOKEN_LIFETIME_SECONDS = 900;

/**
 * The session revocation subject of one session (a human access token's `sid`: a login's refresh-token family, or
 * one impersonation): revoking it ends that session's access tokens and no other session of the same person.
 */
export const sessionSubject = (sessionId: string) => `session:${sessionId}`;

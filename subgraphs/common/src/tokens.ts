/**
 * Issuers of the platform's bearer JWTs. The portal signs with them and the edge accepts a token only with the
 * issuer of its kind, so a device token can never pass as a human one or the other way round.
 */
export const HUMAN_TOKEN_ISSUER = "pos-cloud-human";
export const DEVICE_TOKEN_ISSUER = "pos-cloud-device";

/** Human access tokens live 15 minutes (the spec's Limits). */
export const HUMAN_TOKEN_LIFETIME_SECONDS = 900;

import { AppError, type SecretBox } from "@pos-cloud/common";
import type { GatewayCredentialRepository } from "./gateway-credential.repository";

/** A client_id and its secret at the payment gateway. */
export interface GatewayCredential {
  clientId: string;
  secret: string;
}

/**
 * How long a process signs with the credential it last read before reading again: a renewal overlaps the old key by
 * 30 days, so a minute's delay costs nothing, and a refused call reads again at once anyway.
 */
export const CREDENTIAL_CACHE_MS = 60_000;

/**
 * POS's current credential at the gateway, kept in POS's own database so that every POS process (embedded, worker,
 * each cluster subgraph process) signs with the newest one written by the platform's renewal job, without a restart.
 */
export function gatewayCredentialService(
  rows: GatewayCredentialRepository,
  box: SecretBox | undefined,
  clock: () => Date,
) {
  let cached: { credential: GatewayCredential | undefined; readAt: number } | undefined;

  async function read() {
    const row = await rows.newest();
    const credential = row && box ? { clientId: row.client_id, secret: box.open(row.secret) } : undefined;
    cached = { credential, readAt: clock().getTime() };
    return credential;
  }

  return {
    /** The newest credential, read at most once a minute. */
    async current(): Promise<GatewayCredential | undefined> {
      if (cached && clock().getTime() - cached.readAt < CREDENTIAL_CACHE_MS) return cached.credential;
      return read();
    },
    /** The newest credential from the database now: after the gateway refused the cached one. */
    fresh: read,
    /**
     * Records `next` as the credential to sign with, unless it already is the newest; `onlyIfNone` seeds from a
     * process's environment without undoing a renewal written since that environment was made.
     */
    async save(next: GatewayCredential, options: { onlyIfNone?: boolean } = {}) {
      if (!box) throw new AppError("internal_error", "POS needs the master key to keep its gateway credential");
      const newest = await read();
      if (newest && (options.onlyIfNone || (newest.clientId === next.clientId && newest.secret === next.secret)))
        return;
      await rows.add({ client_id: next.clientId, secret: box.seal(next.secret), created_at: clock() });
      cached = { credential: next, readAt: clock().getTime() };
    },
  };
}

export type GatewayCredentialService = ReturnType<typeof gatewayCredentialService>;

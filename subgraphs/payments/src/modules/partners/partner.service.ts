import { randomBytes } from "node:crypto";
import { AppError, type Caller, newUlid, requireService, type SecretBox } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { PartnerRepository } from "./partner.repository";

export type PartnerService = ReturnType<typeof partnerService>;

/** While a secret rotates, the old and the new one both verify; a third would make rotation open-ended. */
const MAX_ACTIVE_SECRETS = 2;

export interface IssuedApiKey {
  id: string;
  client_partner_id: number;
  client_id: string;
  secret: string;
  webhook_secret: string;
}

export function partnerService(partners: PartnerRepository, box: SecretBox, clock: Clock) {
  return {
    createPartner: (name: string) => partners.createPartner(name),

    /**
     * Makes this partner the gateway's sync partner, the only one whose sync creates merchant and store ids (the
     * portal's), and takes that from any other. The platform calls it at start for the partner its portal syncs as.
     */
    async designateSyncPartner(client_partner_id: number): Promise<void> {
      if (!(await partners.findPartner(client_partner_id))) throw new AppError("not_found", "client partner not found");
      await partners.designateSyncPartner(client_partner_id);
    },

    /**
     * Issues an HMAC secret (and a webhook secret) for a client_id: a new client_id when none is given, or a second
     * secret of an existing one to rotate it. Secrets are returned once and kept only sealed.
     */
    async issueApiKey(client_partner_id: number, options: { client_id?: string } = {}): Promise<IssuedApiKey> {
      if (!(await partners.findPartner(client_partner_id))) throw new AppError("not_found", "client partner not found");
      const client_id = options.client_id ?? `cl_${randomBytes(12).toString("hex")}`;
      const active = await partners.activeKeys(client_id);
      if (active.some((key) => key.client_partner_id !== client_partner_id)) {
        throw new AppError("conflict", "client_id belongs to another client partner", { field: "client_id" });
      }
      if (active.length >= MAX_ACTIVE_SECRETS) {
        throw new AppError("conflict", "two secrets are already active; revoke one first", { field: "client_id" });
      }
      const secret = randomBytes(32).toString("hex");
      const webhook_secret = `whsec_${randomBytes(32).toString("base64url")}`;
      const key = await partners.createKey({
        id: newUlid(),
        client_partner_id,
        client_id,
        secret_sealed: box.seal(secret),
        webhook_secret_sealed: box.seal(webhook_secret),
      });
      return { id: key.id, client_partner_id, client_id, secret, webhook_secret };
    },

    async revokeApiKey(client_partner_id: number, id: string): Promise<void> {
      const { count } = await partners.revokeKey(id, client_partner_id, clock());
      if (count === 0) throw new AppError("not_found", "active API key not found");
    },

    /** The active secrets of a client_id, for the edge to verify a signature; null when the client_id is unknown. */
    async credentialsFor(caller: Caller, client_id: string) {
      requireService(caller);
      const active = await partners.activeKeys(client_id);
      const first = active[0];
      if (!first) return null;
      return { client_partner_id: first.client_partner_id, secrets: active.map((key) => box.open(key.secret_sealed)) };
    },
  };
}

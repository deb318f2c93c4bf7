import { type Caller, requireService } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { RevocationRepository } from "./revocation.repository";

export type RevocationService = ReturnType<typeof revocationService>;

/** The edge follows the revocations to refuse revoked tokens on every request without asking the portal each time. */
export function revocationService(revocations: RevocationRepository, clock: Clock) {
  return {
    inForce(caller: Caller, since: Date | null) {
      requireService(caller);
      return revocations.inForce(clock(), since);
    },
  };
}

import type { Job } from "@pos-cloud/common/jobs";
import { messageRetryJob } from "@pos-cloud/common/messages";
import type { PortalDeps } from "./context";

const HOUR_MS = 60 * 60 * 1000;

/**
 * The portal's periodic work: the gateway sync (due rows every second and at once on a change, every merchant at
 * start and every 15 minutes) and the signing-key rotation check. Keys also rotate lazily when they sign, but a
 * quiet platform may not sign for a while: the check at start (awaited, so the JWKS never serves an overdue key)
 * and every hour rotates keys past 90 days. And the retries of MFA codes by e-mail and SMS.
 */
export function portalJobs(deps: Pick<PortalDeps, "gatewaySync" | "signingKeys" | "messages">): Job[] {
  return [
    deps.gatewaySync.job(),
    messageRetryJob("portal-message-retries", deps.messages),
    {
      name: "signing-key-rotation",
      schedule: { everyMs: HOUR_MS },
      runAtStart: "awaited",
      run: () => deps.signingKeys.rotateDue(),
    },
  ];
}

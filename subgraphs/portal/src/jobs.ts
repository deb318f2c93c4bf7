import type { Job } from "@pos-cloud/common/jobs";
import type { PortalDeps } from "./context";

const HOUR_MS = 60 * 60 * 1000;

/**
 * The portal's periodic work: the gateway sync (due rows every second and at once on a change, every merchant at
 * start and every 15 minutes) and the signing-key rotation check. Keys also rotate lazily when they sign, but a
 * quiet platform may not sign for a while: the check at start (awaited, so the JWKS never serves an overdue key)
 * and every hour rotates keys past 90 days.
 */
export function portalJobs(deps: Pick<PortalDeps, "gatewaySync" | "signingKeys">): Job[] {
  return [
    deps.gatewaySync.job(),
    {
      name: "signing-key-rotation",
      schedule: { everyMs: HOUR_MS },
      runAtStart: "awaited",
      run: () => deps.signingKeys.rotateDue(),
    },
  ];
}

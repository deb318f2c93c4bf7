import { existsSync } from "node:fs";
import { join } from "node:path";
import { openPortal } from "@pos-cloud/portal";
import type { PlatformConfig } from "./environment";
import { loadOrCreateMasterKey } from "./master-key";

/**
 * `npm run keys:rotate`: new human and device signing keys now, whatever their age; the old ones keep verifying
 * for their 7-day overlap. Needs the master key the platform uses: it never makes a new one.
 */
export async function rotateSigningKeys(config: PlatformConfig): Promise<{ human: string; device: string }> {
  if (!config.masterKey && !existsSync(join(config.dataDir, "master.key"))) {
    throw new Error(`no master key: set MASTER_KEY or run from the platform's DATA_DIR (${config.dataDir})`);
  }
  const masterKey = loadOrCreateMasterKey(config.dataDir, config.masterKey);
  const portal = await openPortal({ url: config.databaseUrls.portal, dataDir: config.dataDir, masterKey });
  try {
    return { human: await portal.signingKeys.rotate("human"), device: await portal.signingKeys.rotate("device") };
  } finally {
    await portal.close();
  }
}

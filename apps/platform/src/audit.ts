// npm run audit -- verify
// Walks the audit log's hash chain from its first record and checks its last against the head sealed under the master
// key; names the first broken link (exit 1), or says how many records hold (exit 0). Embedded storage (PGlite under
// DATA_DIR, its key MASTER_KEY or DATA_DIR/master.key) or DATABASE_URL_PORTAL with MASTER_KEY, as the other commands;
// with embedded storage, stop the platform first.
import { openPortal } from "@pos-cloud/portal";
import { loadEnvironment } from "./environment";
import { readMasterKey } from "./master-key";

if (process.argv[2] !== "verify") {
  console.error("usage: npm run audit -- verify");
  process.exit(2);
}
const config = loadEnvironment();
try {
  // The head's seal is keyed by the master key: without the platform's own key no head would hold.
  const masterKey = readMasterKey(config.dataDir, config.masterKey);
  const portal = await openPortal({ url: config.databaseUrls.portal, dataDir: config.dataDir, masterKey });
  try {
    const { records, unchained, broken } = await portal.auditTrail.verify();
    if (broken) {
      console.error(
        `audit chain broken at seq ${broken.seq}${broken.id ? ` (record ${broken.id})` : ""}: ${broken.reason}`,
      );
      process.exitCode = 1;
    } else {
      const before = unchained > 0 ? ` (${unchained} of them written before the chain existed, unverifiable)` : "";
      console.log(`audit chain holds: ${records} records${before}`);
    }
  } finally {
    await portal.close();
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}

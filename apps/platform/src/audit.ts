// npm run audit -- verify
// Walks the audit log's hash chain from its first record and names the first broken link (exit 1), or says how many
// records hold (exit 0). Embedded storage (PGlite under DATA_DIR) or DATABASE_URL_PORTAL, as the other commands; with
// embedded storage, stop the platform first.
import { openPortal } from "@pos-cloud/portal";
import { loadEnvironment } from "./environment";

if (process.argv[2] !== "verify") {
  console.error("usage: npm run audit -- verify");
  process.exit(2);
}
const config = loadEnvironment();
// Verifying reads no secret: without the platform's master key, any key opens the portal's storage.
const portal = await openPortal({
  url: config.databaseUrls.portal,
  dataDir: config.dataDir,
  masterKey: config.masterKey ?? Buffer.alloc(32),
});
try {
  const { records, broken } = await portal.auditTrail.verify();
  if (broken) {
    console.error(`audit chain broken at seq ${broken.seq} (record ${broken.id}): ${broken.reason}`);
    process.exitCode = 1;
  } else {
    console.log(`audit chain holds: ${records} records`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await portal.close();
}

// npm run backup -- <file> | npm run restore -- <file>: the embedded platform's databases (DATA_DIR) and the files
// beside them, encrypted under BACKUP_PASSPHRASE. A backup is taken through the running platform, or from the data
// directory while none runs; a restore goes into a data directory without databases, with the platform stopped.
// Cluster mode: docs/operations.md.

import { backup, restore } from "./backup";
import { loadEnvironment } from "./environment";

const [command, file] = process.argv.slice(2);
if ((command !== "backup" && command !== "restore") || !file) {
  console.error("usage: npm run backup -- <file> | npm run restore -- <file>");
  process.exit(2);
}
const { dataDir, backupPassphrase } = loadEnvironment();
if (!backupPassphrase) {
  // A backup holds the master key and every database: never written in the clear, so no default passphrase either.
  console.error(
    `the ${command} needs BACKUP_PASSPHRASE (at least 12 characters): backups are encrypted with it, and a restore ` +
      "needs the one the backup was made with (docs/operations.md, Backups)",
  );
  process.exit(2);
}
try {
  if (command === "backup") {
    const platform = await backup(dataDir, file, backupPassphrase);
    console.log(
      `${file}: an encrypted backup of ${dataDir} (${platform === "running" ? "taken by the running platform" : "the platform was not running"})`,
    );
  } else {
    await restore(dataDir, file, backupPassphrase);
    console.log(`${dataDir}: restored from ${file}; npm start runs it`);
  }
} catch (error) {
  console.error(`the ${command} failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

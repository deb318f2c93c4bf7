import { closeSync, mkdirSync, openSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { repositoryRoot } from "@pos-cloud/common";

const lockFile = join(repositoryRoot, "node_modules", ".cache", "pos-cloud", "build.lock");
/** A lock older than any build is one a killed test process left behind. */
const STALE_MS = 10 * 60_000;

/**
 * Runs `work`, which may build the server (`npm run build:server`, or `npm start` finding its build stale), while no
 * other test process does: two `tsc -b` writing one dist/ at once break each other's output.
 */
export async function whileNoOtherBuild<T>(work: () => Promise<T>): Promise<T> {
  mkdirSync(join(lockFile, ".."), { recursive: true });
  for (;;) {
    try {
      closeSync(openSync(lockFile, "wx"));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = Date.now() - (statSync(lockFile, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_MS) rmSync(lockFile, { force: true });
      else await sleep(250);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

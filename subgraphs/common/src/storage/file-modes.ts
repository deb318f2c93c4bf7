import { chmodSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";

/**
 * Keeps a data directory owner-only, as PostgreSQL requires of its own (directories 0700, files 0600): the databases,
 * the master key beside them, the demo's credentials. PGlite writes through Emscripten's file system, which gives the
 * files of a new cluster (initdb) mode 0666 whatever the umask, and copies and restores keep a file's mode: so the
 * tree is made owner-only where the storage makes, copies or loads one. The umask 077 set here covers what the
 * process creates from then on with default modes (Node, PGlite's own files); every process that opens embedded
 * storage passes through here, so it is set where it is needed rather than in each command's entry point.
 */
export function keepOwnerOnly(path: string): void {
  ownerOnlyFromNow();
  makeOwnerOnly(path);
}

/** What this process creates with default modes from now on is owner-only. */
export function ownerOnlyFromNow(): void {
  // A worker thread may not change the umask; the process's main thread has set it before starting one.
  if (isMainThread) process.umask(0o077);
}

/** Directories 0700 and files without group or other bits, under `path` and itself; symbolic links are left alone. */
export function makeOwnerOnly(path: string): void {
  const walk = (at: string) => {
    const stat = lstatSync(at, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== 0o700) chmodSync(at, 0o700);
      for (const entry of readdirSync(at)) walk(join(at, entry));
    } else if (stat.isFile() && (stat.mode & 0o077) !== 0) {
      chmodSync(at, stat.mode & 0o700);
    }
  };
  walk(path);
}

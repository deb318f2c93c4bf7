import { logger } from "./logger";

/** What the system answers when a process (EMFILE) or the machine (ENFILE) has no file descriptor left. */
const OUT_OF_DESCRIPTORS = new Set(["EMFILE", "ENFILE"]);

/** One log line per this long while descriptors stay exhausted: a flood would otherwise write one per failure. */
const LOG_EVERY_MS = 10_000;

const shedders = new Set<() => void>();

export const isOutOfDescriptors = (error: unknown) =>
  OUT_OF_DESCRIPTORS.has((error as NodeJS.ErrnoException | undefined)?.code ?? "");

/** What a server gives up when descriptors run out (its idle connections); the returned function unregisters it. */
export function shedWhenOutOfDescriptors(shed: () => void): () => void {
  shedders.add(shed);
  return () => shedders.delete(shed);
}

let lastLogged = 0;
let unlogged = 0;

/** Logs (at most every LOG_EVERY_MS) and sheds: every registered server lets its idle connections go. */
export function outOfDescriptors(error: unknown) {
  unlogged++;
  const now = Date.now();
  if (now - lastLogged >= LOG_EVERY_MS) {
    logger.error("out of file descriptors: shedding idle connections", {
      alert: "descriptors_exhausted",
      failures: unlogged,
      error,
    });
    lastLogged = now;
    unlogged = 0;
  }
  for (const shed of shedders) {
    try {
      shed();
    } catch {
      // A server already closing has nothing to shed.
    }
  }
}

/**
 * A process-level guard: an error that escapes every handler because descriptors ran out (a failed accept, a
 * timer that read /proc) is logged and answered by shedding, and the process keeps serving; the connection caps
 * keep this rare, and a restart would drop every terminal's connection at once. Any other uncaught error still ends
 * the process, as Node would: its state is unknown, and the supervisor starts a clean one.
 */
export function guardAgainstDescriptorExhaustion(name: string) {
  process.on("uncaughtException", (error, origin) => {
    if (isOutOfDescriptors(error)) return outOfDescriptors(error);
    console.error(`${name}: ${origin === "unhandledRejection" ? "unhandled rejection" : "uncaught exception"}:`, error);
    process.exit(1);
  });
}

/** How long a clean stop may take before the process exits anyway. */
const FORCED_EXIT_MS = 15_000;

/**
 * Stops the process cleanly on SIGINT and SIGTERM. Ctrl-C under npm reaches a process twice (from the terminal and
 * forwarded by npm): the second must not cut the clean stop short; a stop that hangs is ended by a timer.
 */
export function stopOnSignals(name: string, stop: () => Promise<void>) {
  let stopping = false;
  const onSignal = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`${name}: ${signal}: stopping`);
    // Kept referenced: a stop left waiting on a promise nothing will settle must end here, said, rather than in a
    // silent exit once the event loop has nothing else to do.
    setTimeout(() => {
      console.error(`${name}: did not stop within ${FORCED_EXIT_MS / 1000} seconds; exiting`);
      process.exit(1);
    }, FORCED_EXIT_MS);
    try {
      await stop();
    } catch (error) {
      console.error(`${name}: stopping failed:`, error);
      process.exit(1);
    }
    console.log(`${name}: stopped`);
    process.exit(0);
  };
  process.on("SIGINT", (signal) => void onSignal(signal));
  process.on("SIGTERM", (signal) => void onSignal(signal));
}

import { performance } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";

/** Four times: V8's own ceiling for large heaps, and what Go's GOGC=300 means. */
const OLD_GENERATION_GROWTH_PERCENT = 300;
/** How often the process looks whether a busy period has passed. */
const IDLE_CHECK_MS = 10_000;
/** Below this share of the last check's interval spent running JavaScript, the process is idle. */
const IDLE_UTILIZATION = 0.05;
/** Growth of the heap since the last collection worth a full collection once idle. */
const GROWTH_WORTH_COLLECTING = 32 * 1024 * 1024;

/**
 * Once a busy period has passed, one full collection. The old generation may grow fourfold before V8 collects it,
 * and V8's memory reducer starts only after a full collection: after a burst of requests the garbage it left (about
 * 80 MB after the create-intent benchmark's 20 s) stayed resident until the next burst.
 */
export function collectWhenIdle(intervalMs = IDLE_CHECK_MS) {
  v8.setFlagsFromString("--expose-gc");
  const collect = vm.runInNewContext("gc") as () => void;
  let collected = heapUsed();
  let last = performance.eventLoopUtilization();
  setInterval(() => {
    const current = performance.eventLoopUtilization();
    const idle = performance.eventLoopUtilization(current, last).utilization < IDLE_UTILIZATION;
    last = current;
    if (!idle || heapUsed() - collected < GROWTH_WORTH_COLLECTING) return;
    collect();
    collected = heapUsed();
  }, intervalMs).unref();
}

/**
 * V8's own count, read from memory. `process.memoryUsage()` also reads the resident size from /proc, which needs a
 * file descriptor: with none left it threw EMFILE from this timer and ended the process (issue 32).
 */
const heapUsed = () => v8.getHeapStatistics().used_heap_size;

/**
 * Server processes let the old generation grow to four times what survived the last full collection before the next
 * one. Left to size this itself, V8 collected every few seconds under load, and each full collection's marking
 * held up the requests around it past the latency target. It costs memory, not time (docs/decisions.md); the
 * memory comes back once the load has passed (`collectWhenIdle`).
 */
export function tuneGarbageCollection() {
  v8.setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
  collectWhenIdle();
}

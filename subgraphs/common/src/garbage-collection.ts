import v8 from "node:v8";

/** Four times: V8's own ceiling for large heaps, and what Go's GOGC=300 means. */
const OLD_GENERATION_GROWTH_PERCENT = 300;

/**
 * Server processes let the old generation grow to four times what survived the last full collection before the next
 * one. Left to size this itself, V8 collected every few seconds under load, and each full collection's marking
 * held up the requests around it past the latency target. It costs memory, not time (docs/decisions.md).
 */
export function tuneGarbageCollection() {
  v8.setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
}

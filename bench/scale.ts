import type { LoadLength } from "./autocannon";

/**
 * How long and how large each scenario of `npm run bench` runs: the measured run, or `--smoke`, which runs every
 * scenario for a few seconds so that a broken one is noticed (`npm test`). A smoke run judges no speed; a scenario
 * that errors, is refused or loses an event fails it, as it fails the measured run.
 */
export interface Scale {
  smoke: boolean;
  /** Each measured load. */
  seconds: number;
  /**
   * When set, each autocannon load (bench/scenarios.ts, the hierarchy's reads) sends this many requests and ends once
   * they are answered, instead of running for its seconds.
   */
  loadRequests?: number;
  /** The load before it, which compiles the stack's hot paths; none when 0. */
  warmupSeconds: number;
  /** How long the started platform idles before its resident memory is read. */
  idleMs: number;
  /** Outbox rows each drain publishes (a multiple of an intent's four events). */
  events: number;
  /** Terminals following an intent each in the notification scenario. */
  terminals: number;
  /** The paced notification round's time between two payments (the other round pays them all at once). */
  notificationPaceMs: number;
  /** The hierarchy's tree: merchants, and stores under each. */
  merchants: number;
  storesPerMerchant: number;
  /** The cluster's shapes: edge processes and workers, each started and measured in turn. */
  clusterShapes: { edges: number; workers: number }[];
}

export const measuredScale: Scale = {
  smoke: false,
  seconds: 10,
  warmupSeconds: 5,
  idleMs: 30_000,
  events: 10_000,
  terminals: 200,
  notificationPaceMs: 100,
  merchants: 20,
  storesPerMerchant: 20,
  clusterShapes: [
    { edges: 1, workers: 1 },
    { edges: 1, workers: 2 },
    { edges: 2, workers: 1 },
    { edges: 2, workers: 2 },
  ],
};

/** More terminals than one caller may follow (50), so the scenario proves it subscribes as several. */
export const smokeScale: Scale = {
  smoke: true,
  seconds: 1,
  // A count, not a time: a loaded machine once answered no request of the gateway's read within a second.
  loadRequests: 100,
  // It judges no speed, so nothing needs warming.
  warmupSeconds: 0,
  idleMs: 500,
  events: 400,
  terminals: 60,
  // The measured pace would make the paced round six of the smoke run's seconds.
  notificationPaceMs: 20,
  merchants: 2,
  storesPerMerchant: 3,
  // The largest shape: two edges sharing the port and two workers sharing the bus's consumer groups.
  clusterShapes: [{ edges: 2, workers: 2 }],
};

/** A load of `seconds`, or of the scale's `loadRequests` when it has them. */
export const loadLength = (scale: Scale, seconds: number): LoadLength =>
  scale.loadRequests ? { requests: scale.loadRequests } : { seconds };

/** Throws when a run was refused, errored or lost something: its figures would describe a broken scenario. */
export function requireClean(scenario: string, problems: Record<string, number | undefined>) {
  const found = Object.entries(problems).filter(([, count]) => (count ?? 0) > 0);
  if (found.length > 0)
    throw new Error(`${scenario}: ${found.map(([what, count]) => `${count} ${what.replaceAll("_", " ")}`).join(", ")}`);
}

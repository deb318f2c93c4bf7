import type { ServerResponse } from "node:http";
import type { JobState } from "./jobs";
import { logger } from "./logger";

/** What a process needs to serve requests, by name (`database`, `redis`, `nats`, a subgraph): each throws when down. */
export type ReadinessChecks = Record<string, () => Promise<unknown>>;

/** A check that has not answered by then counts as down: a hung dependency is as unusable as a refused one. */
const CHECK_TIMEOUT_MS = 2000;

async function settle(check: () => Promise<unknown>): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /ready`: 200 when every dependency answers, else 503 naming those that do not (their errors, which may name
 * hosts, go to the log only); with the periodic jobs the process runs, when it runs any.
 */
export async function sendReadiness(res: ServerResponse, checks: ReadinessChecks, jobs?: () => JobState[]) {
  const names = Object.keys(checks);
  const failures = await Promise.all(names.map((name) => settle(checks[name]!)));
  const down = names.filter((_, i) => failures[i]);
  if (down.length > 0)
    logger.warn(
      "not ready",
      Object.fromEntries(names.flatMap((name, i) => (failures[i] ? [[name, failures[i]]] : []))),
    );
  res.writeHead(down.length === 0 ? 200 : 503, { "content-type": "application/json" });
  const body = down.length === 0 ? { status: "ready" } : { status: "unavailable", down };
  res.end(JSON.stringify(jobs ? { ...body, jobs: jobs() } : body));
}

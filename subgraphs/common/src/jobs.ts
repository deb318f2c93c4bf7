import { Cron } from "croner";
import { AppError } from "./errors";
import { logger } from "./logger";
import { jobMetrics } from "./metrics";

/** Every `everyMs` after the previous run ended, or at the times of a cron pattern in a time zone. */
export type JobSchedule = { everyMs: number } | { cron: string; timezone: string };

/** One piece of periodic work: what runs, when, and what an operator sees when it fails. */
export interface Job {
  /** Unique in the registry: the `job` label of its metrics, the name `trigger` and `/ready` use. */
  name: string;
  schedule: JobSchedule;
  /** Ends when its work is done; aborted when the registry stops (a run then returns as soon as it can). */
  run(signal: AbortSignal): Promise<unknown>;
  /** Also run as soon as the registry starts; `awaited`: the registry's start waits for that first run. */
  runAtStart?: true | "awaited";
  /** The `alert` field of the error logged when a run fails. */
  alert?: string;
  /**
   * Called at the registry's start with a function that runs the job early (a database notification, a change that
   * must be pushed now); returns what undoes it at stop.
   */
  setUp?(trigger: () => void): Promise<() => Promise<void> | void> | (() => Promise<void> | void);
}

export interface JobState {
  name: string;
  schedule: string;
  running: boolean;
  last_success_at: string | null;
  last_failure_at: string | null;
  next_run_at: string | null;
}

export type JobRegistry = ReturnType<typeof jobRegistry>;

const scheduleText = (schedule: JobSchedule) =>
  "everyMs" in schedule ? `every ${schedule.everyMs} ms` : `${schedule.cron} (${schedule.timezone})`;

/** One job of a registry: its state, its timer and its runs. `stopping` ends the schedule and is each run's signal. */
function scheduledJob(job: Job, clock: () => Date, stopping: AbortSignal) {
  const cron = "cron" in job.schedule ? new Cron(job.schedule.cron, { timezone: job.schedule.timezone }) : undefined;
  const state: JobState = {
    name: job.name,
    schedule: scheduleText(job.schedule),
    running: false,
    last_success_at: null,
    last_failure_at: null,
    next_run_at: null,
  };
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  let again: Promise<void> | undefined;

  const nextRunAfter = (now: Date) =>
    cron ? cron.nextRun(now) : new Date(now.getTime() + (job.schedule as { everyMs: number }).everyMs);

  function schedule() {
    clearTimeout(timer);
    if (stopping.aborted) return;
    const now = clock();
    const next = nextRunAfter(now);
    state.next_run_at = next?.toISOString() ?? null;
    if (!next) return;
    timer = setTimeout(() => void run(), Math.min(Math.max(0, next.getTime() - now.getTime()), 2 ** 31 - 1));
    timer.unref();
  }

  async function once() {
    state.running = true;
    try {
      await job.run(stopping);
      state.last_success_at = clock().toISOString();
      jobMetrics.runs.inc({ job: job.name, outcome: "succeeded" });
      jobMetrics.lastSuccess.set({ job: job.name }, clock().getTime() / 1000);
    } catch (error) {
      state.last_failure_at = clock().toISOString();
      jobMetrics.runs.inc({ job: job.name, outcome: "failed" });
      logger.error(`job ${job.name} failed`, { job: job.name, alert: job.alert ?? "job_failed", error });
    } finally {
      state.running = false;
    }
  }

  /** Runs now, or right after the run under way (once however often asked meanwhile); resolves when it ended. */
  function run(): Promise<void> {
    if (stopping.aborted) return Promise.resolve();
    if (current) {
      again ??= current.then(() => {
        again = undefined;
        return run();
      });
      return again;
    }
    clearTimeout(timer);
    state.next_run_at = null;
    current = once().finally(() => {
      current = undefined;
      if (!again) schedule();
    });
    return current;
  }

  return {
    job,
    state,
    run,
    schedule,
    async stop() {
      clearTimeout(timer);
      await again;
      await current;
    },
  };
}

/**
 * The process's periodic work in one place (CONTRIBUTING.md, "A module, whole": each subgraph's `jobs.ts`): each job
 * runs on its schedule, never twice at once (a trigger during a run runs it again right after), and counts its runs,
 * failures and last success in `/metrics`. A failed run is logged and the job keeps its schedule. `clock` dates the
 * runs and places cron times.
 */
export function jobRegistry(options: { clock?: () => Date } = {}) {
  const clock = options.clock ?? (() => new Date());
  const stopping = new AbortController();
  const entries = new Map<string, ReturnType<typeof scheduledJob>>();
  const teardowns: (() => Promise<void> | void)[] = [];
  let started = false;

  function entry(name: string) {
    const found = entries.get(name);
    if (!found) throw new AppError("not_found", `no job is named ${name}`, { field: "name" });
    return found;
  }

  return {
    /** Adds jobs; before `start` only. */
    register(...jobs: Job[]) {
      if (started) throw new Error("jobs are registered before the registry starts");
      for (const job of jobs) {
        if (entries.has(job.name)) throw new Error(`a job named ${job.name} is registered already`);
        entries.set(job.name, scheduledJob(job, clock, stopping.signal));
      }
      return this;
    },

    /** Sets every job up, starts its schedule and the runs due at start (waiting for the `awaited` ones). */
    async start() {
      started = true;
      for (const { job } of entries.values()) {
        if (job.setUp) teardowns.push(await job.setUp(() => void entry(job.name).run()));
      }
      const awaited: Promise<void>[] = [];
      for (const { job, run, schedule } of entries.values()) {
        if (!job.runAtStart) schedule();
        else if (job.runAtStart === "awaited") awaited.push(run());
        else void run();
      }
      await Promise.all(awaited);
    },

    /** Runs a job by name now (after its run under way), as its schedule would; resolves when that run ended. */
    trigger: (name: string) => entry(name).run(),

    /** What `/ready` and operators see: each job, its schedule, whether it runs now, its last outcomes, its next run. */
    list: (): JobState[] => [...entries.values()].map(({ state }) => ({ ...state })),

    /** No new runs; aborts the runs under way, waits for them to end, then undoes the set-ups, last first. */
    async stop() {
      stopping.abort();
      await Promise.all([...entries.values()].map((entry) => entry.stop()));
      for (const teardown of teardowns.splice(0).reverse()) await teardown();
    },
  };
}

/** A registry of these jobs, started: for a process (or a test) that runs some work on its own. */
export async function startJobs(jobs: Job[], options: { clock?: () => Date } = {}): Promise<JobRegistry> {
  const registry = jobRegistry(options).register(...jobs);
  await registry.start();
  return registry;
}

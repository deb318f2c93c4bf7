import { afterEach, describe, expect, it, vi } from "vitest";
import { type Job, type JobRegistry, jobRegistry, startJobs } from "./jobs";
import { metrics } from "./metrics";

/** A job's series in the registry of the process, as `/metrics` serves them. */
async function seriesOf(job: string) {
  const values = (name: string) => metrics.getSingleMetric(name)!.get();
  const runs = (await values("pgw_job_runs_total")).values.filter((value) => value.labels.job === job);
  const last = (await values("pgw_job_last_success_timestamp_seconds")).values.find(
    (value) => value.labels.job === job,
  );
  const count = (outcome: string) => runs.find((value) => value.labels.outcome === outcome)?.value ?? 0;
  return { succeeded: count("succeeded"), failed: count("failed"), lastSuccess: last?.value };
}

/** A job whose runs wait until released, to see what happens while one is under way. */
function gatedJob(name: string, schedule: Job["schedule"] = { everyMs: 60_000 }) {
  let runs = 0;
  let release = () => {};
  const job: Job = {
    name,
    schedule,
    run: () =>
      new Promise<void>((resolve) => {
        runs++;
        release = resolve;
      }),
  };
  return { job, runs: () => runs, release: () => release() };
}

let registry: JobRegistry | undefined;
afterEach(async () => {
  await registry?.stop();
  registry = undefined;
});

describe("the job registry", () => {
  it("runs a job by name and counts its runs, failures and last success at the injected clock's time", async () => {
    const at = new Date("2026-03-01T00:00:00Z");
    let fail = false;
    registry = await startJobs(
      [
        {
          name: "counted",
          schedule: { everyMs: 60_000 },
          run: async () => {
            if (fail) throw new Error("down");
          },
        },
      ],
      { clock: () => at },
    );
    await registry.trigger("counted");
    expect(await seriesOf("counted")).toEqual({ succeeded: 1, failed: 0, lastSuccess: at.getTime() / 1000 });
    fail = true;
    await registry.trigger("counted");
    expect(await seriesOf("counted")).toEqual({ succeeded: 1, failed: 1, lastSuccess: at.getTime() / 1000 });
    expect(registry.list()).toEqual([
      {
        name: "counted",
        schedule: "every 60000 ms",
        running: false,
        last_success_at: at.toISOString(),
        last_failure_at: at.toISOString(),
        next_run_at: new Date(at.getTime() + 60_000).toISOString(),
      },
    ]);
  });

  it("never runs a job twice at once: a trigger during a run runs it once more right after", async () => {
    const gated = gatedJob("gated");
    registry = await startJobs([gated.job]);
    const first = registry.trigger("gated");
    const second = registry.trigger("gated");
    const third = registry.trigger("gated");
    expect(second).toBe(third);
    expect(gated.runs()).toBe(1);
    expect(registry.list()[0]!.running).toBe(true);
    gated.release();
    await first;
    await vi.waitFor(() => expect(gated.runs()).toBe(2));
    gated.release();
    await second;
    expect(gated.runs()).toBe(2);
  });

  it("places a cron job's next run by the injected clock in the job's time zone", async () => {
    registry = await startJobs([gatedJob("nightly", { cron: "0 2 * * *", timezone: "Asia/Tokyo" }).job], {
      clock: () => new Date("2026-03-01T10:00:00Z"),
    });
    expect(registry.list()[0]).toMatchObject({
      schedule: "0 2 * * * (Asia/Tokyo)",
      next_run_at: "2026-03-01T17:00:00.000Z",
    });
  });

  it("runs on its schedule, at start when asked, and triggered by its set-up", async () => {
    let runs = 0;
    let wake = () => {};
    const tornDown = vi.fn();
    registry = await startJobs([
      {
        name: "woken",
        schedule: { everyMs: 60_000 },
        runAtStart: "awaited",
        run: async () => {
          runs++;
        },
        setUp(trigger) {
          wake = trigger;
          return tornDown;
        },
      },
    ]);
    expect(runs).toBe(1);
    wake();
    await vi.waitFor(() => expect(runs).toBe(2));
    await registry.stop();
    expect(tornDown).toHaveBeenCalledOnce();
    registry = await startJobs([{ name: "often", schedule: { everyMs: 5 }, run: async () => void runs++ }]);
    await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(5));
  });

  it("stops by aborting the run under way and waiting for it", async () => {
    let aborted = false;
    registry = await startJobs([
      {
        name: "long",
        schedule: { everyMs: 60_000 },
        run: (signal) =>
          new Promise<void>((resolve) =>
            signal.addEventListener("abort", () => {
              aborted = true;
              resolve();
            }),
          ),
      },
    ]);
    const running = registry.trigger("long");
    await registry.stop();
    expect(aborted).toBe(true);
    await running;
    expect(registry.list()[0]).toMatchObject({ running: false, next_run_at: null });
  });

  it("refuses an unknown name and a name registered twice", () => {
    const jobs = jobRegistry();
    const job: Job = { name: "once", schedule: { everyMs: 1000 }, run: async () => {} };
    jobs.register(job);
    expect(() => jobs.register(job)).toThrow(/registered already/);
    expect(() => jobs.trigger("missing")).toThrow(expect.objectContaining({ code: "not_found" }));
  });
});

// CPU seconds spent during a measured piece of work, by this process and by another one named by its pid (NATS_PID,
// the NATS server's): on a shared machine a rate moves with the load, the CPU a piece of work takes much less.
import { readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100;

/** User and system CPU seconds of process `pid` so far (Linux, /proc). */
function processSeconds(pid: string) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Starts counting; the returned function gives the CPU seconds since, of this process and of NATS_PID's. */
export function cpuSince() {
  const natsPid = process.env.NATS_PID;
  const own = process.cpuUsage();
  const nats = natsPid ? processSeconds(natsPid) : 0;
  return () => {
    const used = process.cpuUsage(own);
    return {
      bench_cpu_s: Math.round((used.user + used.system) / 10_000) / 100,
      ...(natsPid ? { nats_cpu_s: Math.round((processSeconds(natsPid) - nats) * 100) / 100 } : {}),
    };
  };
}

// npx tsx bench/drain.ts [memory|nats] [publishers] [consumers] [events]
// The events scenario's drain alone (`benchDrain`, PostgreSQL), without the rest of `npm run bench -- events`; the
// figures with the load average they were measured at.
import { loadavg } from "node:os";
import { benchDrain } from "./events";

const [bus = "nats", publishers = "4", consumers = publishers, events = "10000"] = process.argv.slice(2);
if (bus !== "nats" && bus !== "memory") throw new Error("the bus is memory or nats");
const figures = await benchDrain({
  storage: "postgres",
  bus,
  publishers: Number(publishers),
  consumers: Number(consumers),
  postgresBase: process.env.POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432",
  events: Number(events),
});
console.log(
  JSON.stringify({
    ...figures,
    load_average: loadavg()
      .map((n) => n.toFixed(2))
      .join(" "),
  }),
);

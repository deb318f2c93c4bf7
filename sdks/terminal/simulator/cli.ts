// npm run terminal -- simulate [--stores N] [--terminals M] [--rate R] [--mix cash:50,qr:30,card:20] [--duration 60s]
//   [--base-url URL] [--demo .data/demo.json]
// M terminals in each of N stores (the demo store, then new stores of the demo merchant its admin provisions), each
// built on the terminal SDK, selling at R sales per second each; prints sales per second, latency percentiles and
// errors per code, then checks each store's day against what its terminals sold. Exits 1 when a sale failed or the
// totals differ.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Method } from "./sale";
import { type SimulationReport, simulate } from "./simulate";

function usage(message: string): never {
  console.error(`${message}\nusage: npm run terminal -- simulate [--stores N] [--terminals M] [--rate R]`);
  console.error("  [--mix cash:50,qr:30,card:20] [--duration 60s] [--base-url URL] [--demo .data/demo.json]");
  process.exit(2);
}

const positive = (name: string, text: string) => {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) usage(`--${name} must be a positive number, not ${text}`);
  return value;
};

const whole = (name: string, text: string) => {
  const value = positive(name, text);
  if (!Number.isInteger(value)) usage(`--${name} must be a whole number, not ${text}`);
  return value;
};

function parseMix(text: string) {
  const mix: Partial<Record<Method, number>> = {};
  for (const part of text.split(",")) {
    const [method, weight] = part.split(":");
    if (method !== "cash" && method !== "qr" && method !== "card") usage(`--mix: unknown method ${method}`);
    mix[method] = positive("mix", weight ?? "");
  }
  return mix;
}

function parseDuration(text: string) {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text);
  if (!match) usage(`--duration must be like 60s, 500ms or 2m, not ${text}`);
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[(match[2] ?? "s") as "ms" | "s" | "m"];
}

function printReport(report: SimulationReport, print: (line: string) => void = console.log) {
  const { p50, p95, p99 } = report.latency_ms;
  print(`${report.sales} sales in ${report.seconds} s: ${report.sales_per_second} sales/s`);
  print(`latency of a whole sale: p50 ${p50} ms, p95 ${p95} ms, p99 ${p99} ms`);
  const errors = Object.entries(report.errors);
  print(errors.length === 0 ? "errors: none" : `errors: ${errors.map(([code, n]) => `${code} ×${n}`).join(", ")}`);
  for (const method of Object.keys(report.sold)) {
    const sold = report.sold[method]!;
    const counted = report.counted[method]!;
    print(
      `${method.padEnd(5)} sold ${sold.count} for ${sold.amount}; the store's day counted ${counted.count} for ${counted.amount}`,
    );
  }
  if (report.stores.length > 1)
    for (const store of report.stores) {
      const sold = Object.values(store.sold).reduce((sum, each) => sum + each.count, 0);
      const counted = Object.values(store.counted).reduce((sum, each) => sum + each.count, 0);
      const equal = JSON.stringify(store.sold) === JSON.stringify(store.counted);
      print(`store ${store.id}: sold ${sold}, its day counted ${counted}: ${equal ? "equal" : "DIFFERENT"}`);
    }
  print(report.totals_equal ? "totals: equal" : "totals: DIFFERENT");
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    stores: { type: "string", default: "1" },
    terminals: { type: "string", default: "1" },
    rate: { type: "string", default: "1" },
    mix: { type: "string", default: "cash:50,qr:30,card:20" },
    duration: { type: "string", default: "60s" },
    "base-url": { type: "string" },
    demo: { type: "string", default: ".data/demo.json" },
  },
});
if (positionals[0] !== "simulate") usage("the only command is simulate");
const demo = JSON.parse(readFileSync(values.demo, "utf8"));
const report = await simulate({
  baseUrl: values["base-url"] ?? demo.base_url,
  demo,
  stores: whole("stores", values.stores),
  terminals: whole("terminals", values.terminals),
  rate: positive("rate", values.rate),
  mix: parseMix(values.mix),
  durationMs: parseDuration(values.duration),
  onStart: () =>
    console.log(
      `selling: ${values.stores} store(s), ${values.terminals} terminal(s) each, at ${values.rate} sales/s each for ${values.duration}`,
    ),
});
printReport(report);
process.exit(report.totals_equal && Object.keys(report.errors).length === 0 ? 0 : 1);

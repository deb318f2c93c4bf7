import { TerminalApiError, type TerminalClient } from "@pos-cloud/terminal-sdk";
import { SimulatedStoreDayDocument, type SimulatedStoreDayQuery } from "./operations/gateway.generated";
import { type SimulatedStore, type SimulatorDemo, simulatedStores } from "./provision";
import { type Method, platformMethod, type SaleContext, sell } from "./sale";

export interface SimulateOptions {
  baseUrl: string;
  demo: SimulatorDemo;
  /** The demo store, and new stores of its merchant beyond 1; 1 by default. */
  stores?: number;
  /** Terminals of each store. */
  terminals: number;
  /** Sales per second of each terminal. */
  rate: number;
  /** Weights of the methods, as `--mix cash:50,qr:30,card:20`. */
  mix: Partial<Record<Method, number>>;
  durationMs: number;
  /** Called once the store's day has been read, as the first sales start. */
  onStart?: () => void;
}

type Totals = Record<string, { count: number; amount: number }>;

export interface SimulationReport {
  sales: number;
  seconds: number;
  sales_per_second: number;
  latency_ms: { p50: number; p95: number; p99: number };
  errors: Record<string, number>;
  /** What the terminals sold, per method, and what the stores' days counted of it, all stores together. */
  sold: Totals;
  counted: Totals;
  /** The same of each store: its day is checked against what its own terminals sold. */
  stores: { id: number; sold: Totals; counted: Totals }[];
  /** Every store's day equal to what its terminals sold. */
  totals_equal: boolean;
}

/** The next sale's method: the one furthest behind its share of the mix so far, so even a short run keeps the mix. */
function chooser(mix: SimulateOptions["mix"]) {
  const weights = Object.entries(mix).filter(([, weight]) => (weight ?? 0) > 0) as [Method, number][];
  const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
  const taken = new Map<Method, number>();
  let sales = 0;
  return () => {
    sales++;
    const behind = ([method, weight]: [Method, number]) => (weight * sales) / total - (taken.get(method) ?? 0);
    const [method] = weights.reduce((most, each) => (behind(each) > behind(most) ? each : most));
    taken.set(method, (taken.get(method) ?? 0) + 1);
    return method;
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

/** The store's business day as the platform counts it, per method (only the methods the simulator sells). */
async function storeDayTotals(baseUrl: string, terminal: TerminalClient): Promise<Totals> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${await terminal.tokens.token()}` },
    body: JSON.stringify({ query: SimulatedStoreDayDocument.toString() }),
  });
  const answer = (await response.json()) as { data?: SimulatedStoreDayQuery; errors?: { message: string }[] };
  if (!answer.data) throw new Error(`storeDay answered ${JSON.stringify(answer.errors)}`);
  const totals: Totals = {};
  for (const method of Object.keys(platformMethod) as Method[]) {
    const row = answer.data.storeDay.totals.find((total) => total.payment_method === platformMethod[method]);
    totals[method] = { count: row?.payment_count ?? 0, amount: row?.gross_amount ?? 0 };
  }
  return totals;
}

const difference = (after: Totals, before: Totals): Totals =>
  Object.fromEntries(
    Object.entries(after).map(([method, total]) => [
      method,
      { count: total.count - (before[method]?.count ?? 0), amount: total.amount - (before[method]?.amount ?? 0) },
    ]),
  );

const errorCode = (error: unknown) =>
  error instanceof TerminalApiError ? error.code : error instanceof Error ? error.message.slice(0, 80) : "unknown";

const noSales = (): Totals => Object.fromEntries(Object.keys(platformMethod).map((m) => [m, { count: 0, amount: 0 }]));

const sum = (all: Totals[]): Totals =>
  Object.fromEntries(
    Object.keys(platformMethod).map((method) => [
      method,
      {
        count: all.reduce((total, each) => total + (each[method]?.count ?? 0), 0),
        amount: all.reduce((total, each) => total + (each[method]?.amount ?? 0), 0),
      },
    ]),
  );

const totalsEqual = (a: Totals, b: Totals) => JSON.stringify(a) === JSON.stringify(b);

/** Each store's day as read by its first terminal. */
const storeDays = (baseUrl: string, stores: SimulatedStore[]) =>
  Promise.all(stores.map((store) => storeDayTotals(baseUrl, store.terminals[0]!)));

/**
 * Terminals of `stores` stores selling at `rate` sales per second each for `durationMs`, then each store's day
 * checked against what its terminals sold: the day's totals grew by exactly those sales, per method, count and amount.
 */
export async function simulate(options: SimulateOptions): Promise<SimulationReport> {
  const stores = await simulatedStores(options.baseUrl, options.demo, options.stores ?? 1, options.terminals);
  const before = await storeDays(options.baseUrl, stores);
  const methodOf = chooser(options.mix);
  const sold = stores.map(noSales);
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  options.onStart?.();
  const started = performance.now();
  const ends = started + options.durationMs;
  const interval = 1000 / options.rate;
  let sequence = 0;
  const run = async (terminal: TerminalClient, store: SimulatedStore, storeSold: Totals) => {
    const context: SaleContext = {
      terminal,
      staffCode: store.staffCode,
      provider: options.demo.provider.code,
      qrTimeoutMs: 30_000,
    };
    // A terminal behind its schedule sells back to back until the end, never past it.
    for (let next = performance.now(); next < ends && performance.now() < ends; next += interval) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
      const method = methodOf();
      const number = ++sequence;
      const at = performance.now();
      try {
        const amount = await sell(context, method, number);
        latencies.push(performance.now() - at);
        storeSold[method]!.count++;
        storeSold[method]!.amount += amount;
      } catch (error) {
        const code = errorCode(error);
        errors[code] = (errors[code] ?? 0) + 1;
      }
    }
  };
  await Promise.all(stores.flatMap((store, i) => store.terminals.map((terminal) => run(terminal, store, sold[i]!))));
  const seconds = (performance.now() - started) / 1000;
  const after = await storeDays(options.baseUrl, stores);
  const perStore = stores.map((store, i) => ({
    id: store.id,
    sold: sold[i]!,
    counted: difference(after[i]!, before[i]!),
  }));
  latencies.sort((a, b) => a - b);
  const sales = latencies.length;
  return {
    sales,
    seconds: Math.round(seconds * 10) / 10,
    sales_per_second: Math.round((sales / seconds) * 10) / 10,
    latency_ms: {
      p50: Math.round(percentile(latencies, 50)),
      p95: Math.round(percentile(latencies, 95)),
      p99: Math.round(percentile(latencies, 99)),
    },
    errors,
    sold: sum(perStore.map((store) => store.sold)),
    counted: sum(perStore.map((store) => store.counted)),
    stores: perStore,
    totals_equal: perStore.every((store) => totalsEqual(store.sold, store.counted)),
  };
}

// npx tsx bench/jetstream.ts [events]
// JetStream alone, without the outbox: how many events/s one Node process puts on this machine's NATS, with the
// event the drain publishes (`intentPayload`, about 1 KB as JSON) and the stream the bus makes (file storage, a
// duplicate window, `msgID`), each batch's messages sent before its acknowledgements are awaited, as the publisher
// does. Each variant changes one thing, to see what the drain's publish costs; `uptime` is printed with each figure.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { jetstream, jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connect, nanos } from "@nats-io/transport-node";
import { ulid } from "ulid";
import { cpuSince } from "./cpu";
import { intentPayload } from "./events";

const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const events = Number(process.argv[2] ?? 10_000);

interface Variant {
  name: string;
  storage: StorageType;
  msgID: boolean;
  batch: number;
  connections: number;
}

const asTheBus: Variant = { name: "as the bus", storage: StorageType.File, msgID: true, batch: 100, connections: 1 };
const variants: Variant[] = [
  asTheBus,
  { ...asTheBus, name: "no msgID (no duplicate check)", msgID: false },
  { ...asTheBus, name: "memory storage", storage: StorageType.Memory },
  { ...asTheBus, name: "batches of 1,000", batch: 1000 },
  { ...asTheBus, name: "4 connections, 100 each", connections: 4 },
  asTheBus,
];

const messages = Array.from({ length: events }, () => {
  const id = `pi_${ulid()}`;
  const at = new Date();
  const event = {
    id: ulid(),
    event_type: "payment_intent.created",
    aggregate_type: "payment_intent",
    aggregate_id: id,
    payload: intentPayload(id, "created", at),
    created_at: at.toISOString(),
    traceparent: null,
  };
  return { id: event.id, body: JSON.stringify(event), partition: Number.parseInt(event.id.slice(-2), 36) % 16 };
});

async function run(variant: Variant) {
  const namespace = `benchjs${randomBytes(4).toString("hex")}`;
  const subject = `${namespace}.events`;
  const connections = await Promise.all(
    Array.from({ length: variant.connections }, () => connect({ servers: NATS_URL.split(","), noAsyncTraces: true })),
  );
  const jsm = await jetstreamManager(connections[0]!);
  await jsm.streams.add({
    name: namespace,
    subjects: [`${subject}.*`],
    storage: variant.storage,
    max_age: nanos(7 * 24 * 3600 * 1000),
    duplicate_window: nanos(120_000),
  });
  try {
    const cpu = cpuSince();
    const started = performance.now();
    await Promise.all(
      connections.map(async (nc, n) => {
        const js = jetstream(nc);
        const mine = messages.filter((_, index) => index % connections.length === n);
        for (let from = 0; from < mine.length; from += variant.batch) {
          await Promise.all(
            mine
              .slice(from, from + variant.batch)
              .map((message) =>
                js.publish(
                  `${subject}.${message.partition}`,
                  message.body,
                  variant.msgID ? { msgID: message.id } : undefined,
                ),
              ),
          );
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const { bench_cpu_s, nats_cpu_s } = cpu();
    const stored = (await jsm.streams.info(namespace)).state.messages;
    const uptime = execFileSync("uptime")
      .toString()
      .trim()
      .replace(/.*load/, "load");
    console.log(
      `${variant.name.padEnd(32)} ${Math.round(events / seconds)
        .toString()
        .padStart(6)} events/s, CPU s: node ${bench_cpu_s}, NATS ${nats_cpu_s} (${stored} stored; ${uptime})`,
    );
  } finally {
    await jsm.streams.delete(namespace);
    await Promise.all(connections.map((nc) => nc.close()));
  }
}

console.log(`${events} events of ${messages[0]!.body.length} bytes to ${NATS_URL}`);
for (const variant of variants) await run(variant);

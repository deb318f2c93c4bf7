import { createHash } from "node:crypto";
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from "@nats-io/jetstream";
import { connect, type NatsConnection, nanos } from "@nats-io/transport-node";
import { logger } from "../logger";
import { type BusEvent, type BusSubscription, type MessageBus, redeliveryDelayMs, type Topic } from "./bus";

export interface NatsBusOptions {
  /** `nats://host:port`, or several separated by commas. */
  url: string;
  /** Prefix of the streams' names and subjects, so that deployments (or test runs) can share one NATS. */
  namespace?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Published events stay in the stream for a week, like published outbox rows. */
const RETENTION_MS = 7 * DAY_MS;
/** The publisher gives an event again after a crash; within this window the stream drops the copy by its id. */
const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;
/** An event not acknowledged in this time goes to another member; a handler still working says so sooner. */
const ACK_WAIT_MS = 30_000;
/** A ping the server has not answered by then means the bus cannot take events now (readiness). */
const PING_TIMEOUT_MS = 1000;

const topics: Topic[] = ["events.internal", "webhooks.delivery"];

/**
 * A topic's events are spread over this many subjects by their aggregate, and a group follows each subject with a
 * consumer of its own: the group handles this many events at once, each aggregate's in publish order
 * (docs/decisions/events.md, "Partitions by aggregate on NATS").
 */
export const PARTITIONS = 16;

/** The partition of an aggregate: the same for every event of it, on every process. */
export const partitionOf = (event: Pick<BusEvent, "aggregate_type" | "aggregate_id">) =>
  createHash("sha1").update(`${event.aggregate_type}:${event.aggregate_id}`).digest().readUInt32BE(0) % PARTITIONS;

const partitions = Array.from({ length: PARTITIONS }, (_, n) => n);

/** Durable names may not hold `.`, `*`, `>` or white space. */
const durableName = (group: string) => group.replace(/[.*>\s]/g, "_");

async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }) {
  try {
    await jsm.streams.info(config.name);
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
    await jsm.streams.add(config);
    return;
  }
  await jsm.streams.update(config.name, config);
}

/** Reconnects for as long as the process runs; `connected` tells whether the client is connected now. */
async function connectNats(url: string, namespace: string) {
  // The client's default gives up after 10 attempts, about 20 s, and would leave a worker that outlived a NATS restart
  // publishing nothing: the outbox keeps events meanwhile.
  // Without async traces: the client would otherwise build two stack-capturing errors per request (every publish),
  // about a tenth of the outbox publisher's CPU on NATS; its errors still say what failed.
  const nc = await connect({
    servers: url.split(","),
    name: `${namespace}-bus`,
    maxReconnectAttempts: -1,
    noAsyncTraces: true,
  });
  let connected = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect") connected = false;
      else if (status.type === "reconnect") connected = true;
    }
  })();
  return { nc, connected: () => connected };
}

interface TopicStream {
  name: string;
  subject: string;
}

/** The stream of each topic, created or brought to this configuration. */
async function topicStreams(nc: NatsConnection, namespace: string): Promise<Map<Topic, TopicStream>> {
  const streams = new Map(
    topics.map((topic) => {
      const subject = `${namespace}.${topic}`;
      return [topic, { name: subject.replace(/\W/g, "_"), subject }] as const;
    }),
  );
  const jsm = await jetstreamManager(nc);
  for (const { name, subject } of streams.values()) {
    await ensureStream(jsm, {
      name,
      // The bare subject is kept for publishers of the version before partitions, while a cluster rolls over.
      subjects: [subject, `${subject}.*`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(RETENTION_MS),
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    });
  }
  return streams;
}

const decode = (msg: JsMsg): BusEvent | undefined => {
  try {
    return msg.json<BusEvent>();
  } catch (error) {
    logger.error("a message on the bus is not an event; it is dropped", { subject: msg.subject, error });
    return undefined;
  }
};

const consumerExists = (jsm: JetStreamManager, stream: string, name: string) =>
  jsm.consumers.info(stream, name).then(
    () => true,
    (error: unknown) => {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) return false;
      throw error;
    },
  );

/**
 * A group's durable consumer with explicit acks, one event unacknowledged at a time, given again for ever; created
 * unless it exists (its start is kept as it was first made).
 */
async function addOnce(
  jsm: JetStreamManager,
  stream: string,
  config: { durable_name: string; filter_subject: string; deliver_policy: DeliverPolicy },
) {
  if (await consumerExists(jsm, stream, config.durable_name)) return;
  await jsm.consumers.add(stream, {
    ...config,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_ack_pending: 1,
    max_deliver: -1,
  });
}

/** The consumer groups and listeners of a bus; `stop` ends every one still running. */
function natsSubscriptions(nc: NatsConnection, js: JetStreamClient, streamOf: (topic: Topic) => TopicStream) {
  const running = new Set<BusSubscription>();

  /** Reads messages until stopped; `each` handles one at a time, `giveBack` those still arriving once stopping. */
  function run(messages: ConsumerMessages, each: (msg: JsMsg) => Promise<void>, giveBack?: (msg: JsMsg) => void) {
    let stopping = false;
    const loop = (async () => {
      for await (const msg of messages) {
        if (stopping) giveBack?.(msg);
        else await each(msg);
      }
    })().catch((error: unknown) => logger.warn("a message bus subscription ended", { error }));
    const subscription: BusSubscription = {
      stop: async () => {
        running.delete(subscription);
        stopping = true;
        await messages.close();
        await loop;
      },
    };
    running.add(subscription);
    return subscription;
  }

  /** Hands each message to `handle` and acks it once handled; a failure is given again (nak) before the next. */
  const handled = (group: string, handle: (event: BusEvent) => Promise<void>) => async (msg: JsMsg) => {
    const event = decode(msg);
    if (!event) return msg.term();
    const working = setInterval(() => msg.working(), ACK_WAIT_MS / 3);
    try {
      await handle(event);
      msg.ack();
    } catch (error) {
      logger.warn("event handler failed; the event is given again", { event_id: event.id, group, error });
      msg.nak(redeliveryDelayMs(msg.info.deliveryCount - 1));
    } finally {
      clearInterval(working);
    }
  };

  /** Follows one durable consumer, one event at a time (it holds one unacknowledged event: its members queue). */
  async function follow(stream: string, durable: string, each: (msg: JsMsg) => Promise<void>) {
    const consumer = await js.consumers.get(stream, durable);
    // A message pulled while the member stops goes back at once rather than after `ack_wait`: its partition waits.
    return run(await consumer.consume({ max_messages: 1 }), each, (msg) => msg.nak());
  }

  const subscriptions: Pick<MessageBus, "consume" | "listen"> = {
    async consume(topic, group, handle) {
      const { name: stream, subject } = streamOf(topic);
      const durable = durableName(group);
      const jsm = await jetstreamManager(nc);
      // A group that ran before partitions keeps its durable on the bare subject: its partitions then start at the
      // stream's first event (only this version's publishers wrote there), and the old durable is followed too for
      // what the old version's publishers still write.
      const legacy = await consumerExists(jsm, stream, durable);
      const each = handled(group, handle);
      const members = await Promise.all(
        partitions.map(async (partition) => {
          const name = `${durable}-${partition}`;
          await addOnce(jsm, stream, {
            durable_name: name,
            filter_subject: `${subject}.${partition}`,
            // A new group starts with the events published from now on, as in the memory bus.
            deliver_policy: legacy ? DeliverPolicy.All : DeliverPolicy.New,
          });
          return follow(stream, name, each);
        }),
      );
      if (legacy) {
        members.push(await follow(stream, durable, async (msg) => (msg.subject === subject ? each(msg) : msg.ack())));
      }
      return { stop: async () => void (await Promise.all(members.map((member) => member.stop()))) };
    },
    async listen(topic, handle) {
      const stream = streamOf(topic).name;
      const jsm = await jetstreamManager(nc);
      const { state } = await jsm.streams.info(stream);
      const consumer = await js.consumers.get(stream, {
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: state.last_seq + 1,
      });
      return run(await consumer.consume(), async (msg) => {
        const event = decode(msg);
        if (!event) return;
        try {
          handle(event);
        } catch (error) {
          logger.warn("event listener failed", { event_id: event.id, error });
        }
      });
    },
  };
  return { ...subscriptions, stop: () => Promise.all([...running].map((subscription) => subscription.stop())) };
}

/** Resolves once the server answered a ping, rejects after `PING_TIMEOUT_MS`. */
async function pingNats(nc: NatsConnection) {
  let timer: NodeJS.Timeout | undefined;
  // While disconnected the client keeps the ping for the next connection; its late answer (or failure) is moot.
  const answered = nc.flush();
  answered.catch(() => {});
  try {
    await Promise.race([
      answered,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`NATS did not answer within ${PING_TIMEOUT_MS} ms`)),
          PING_TIMEOUT_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The cluster bus on NATS JetStream: a stream per topic, created (or brought to this configuration) on start, its
 * events on `PARTITIONS` subjects by aggregate; a consumer group is a durable pull consumer per partition with
 * explicit acks that holds one event at a time, so its members get each aggregate's events in publish order and a
 * failed one is given again (nak with a growing delay) before the next of its partition; `listen` is an ordered
 * ephemeral consumer that starts after the stream's last event.
 */
export async function natsBus({ url, namespace = "pgw" }: NatsBusOptions): Promise<MessageBus> {
  const { nc, connected } = await connectNats(url, namespace);
  // A request made while disconnected is kept by the client and sent on reconnection, but its answer never arrives
  // (it times out after 5 s, even once the connection is back): while down, publishes fail at once instead, so the
  // outbox counts an attempt without holding its claimed rows for those seconds, and tries again once NATS is back.
  const unreachable = () => new Error("NATS is unreachable; the client is reconnecting");
  let streams: Map<Topic, TopicStream>;
  try {
    streams = await topicStreams(nc, namespace);
  } catch (error) {
    await nc.close();
    throw error;
  }
  const streamOf = (topic: Topic) => streams.get(topic)!;
  const js = jetstream(nc);
  const subscriptions = natsSubscriptions(nc, js, streamOf);

  return {
    driver: "nats",
    async publish(topic, event) {
      if (!connected()) throw unreachable();
      await js.publish(`${streamOf(topic).subject}.${partitionOf(event)}`, JSON.stringify(event), { msgID: event.id });
    },
    consume: subscriptions.consume,
    listen: subscriptions.listen,
    connected: () => connected() && !nc.isClosed(),
    async ping() {
      if (nc.isClosed()) throw new Error("the NATS connection is closed");
      if (!connected()) throw unreachable();
      await pingNats(nc);
    },
    async close() {
      await subscriptions.stop();
      await nc.drain();
    },
  };
}

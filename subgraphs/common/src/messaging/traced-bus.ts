import { inEventSpan } from "../tracing";
import type { MessageBus } from "./bus";

/**
 * The bus whose consumers and listeners handle each event in a span of the trace its publish carried (the bus →
 * consumer and bus → subscription hops). A listener's span covers its synchronous part; what it starts continues the
 * same trace.
 */
export function tracedBus(bus: MessageBus): MessageBus {
  return {
    ...bus,
    publish: (topic, event) => bus.publish(topic, event),
    consume: (topic, group, handle) =>
      bus.consume(topic, group, (event) => inEventSpan(group, event, () => handle(event))),
    listen: (topic, handle) =>
      bus.listen(topic, (event) => void inEventSpan(`${topic} listener`, event, async () => handle(event))),
    ping: () => bus.ping(),
    connected: () => bus.connected(),
    close: () => bus.close(),
  };
}

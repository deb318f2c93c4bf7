import type { Server } from "node:http";
import { isIPv6, type Socket } from "node:net";
import { AppError } from "@pos-cloud/common";
import { metrics } from "@pos-cloud/common/metrics";
import { Counter, Gauge } from "prom-client";
import { rawErrorResponse } from "./request-guards";

/** Connections (HTTP and WebSocket alike: both are a socket) one edge process holds at once. */
export interface ConnectionLimits {
  /** In all, well under the process's descriptor limit: the databases, the bus and files need descriptors too. */
  total: number;
  /** From one client address (an IPv6 client by its /64, which one host or one home usually has to itself). */
  perIp: number;
}

export const defaultConnectionLimits: ConnectionLimits = { total: 10_000, perIp: 500 };

/** How long a refused connection may stay open for its client to read the 503 before it is cut. */
const REFUSED_LINGER_MS = 1000;

/** Every limited server of the process (tests start several), for the gauge. */
const limited = new Set<() => number>();

export const connectionMetrics = {
  open: new Gauge({
    name: "pgw_connections_open",
    help: "Client connections (HTTP and WebSocket) the edge holds.",
    registers: [metrics],
    collect() {
      this.set([...limited].reduce((sum, count) => sum + count(), 0));
    },
  }),
  refused: new Counter({
    name: "pgw_connections_refused_total",
    help: "Client connections answered 503 and closed because a cap was reached, by cap (total, per_ip).",
    labelNames: ["cap"] as const,
    registers: [metrics],
  }),
};

/** Sockets answered 503: whatever request they still send is not served. */
const refusedSockets = new WeakSet<Socket>();

export const isRefusedConnection = (socket: Socket) => refusedSockets.has(socket);

function expandIPv6(address: string): string[] {
  const [head = "", tail] = address.split("%")[0]!.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0");
  return [...left, ...zeros, ...right].map((group) =>
    group.includes(".") ? group : Number.parseInt(group, 16).toString(16),
  );
}

/**
 * The client a connection counts against: its IPv4 address (also when Node shows it IPv4-mapped), or the /64 of its
 * IPv6 address, since a single host may take any address of its /64. Never `X-Forwarded-For`: anyone can write it.
 */
export function clientOf(address: string | undefined): string {
  if (!address) return "unknown";
  if (address.startsWith("::ffff:") && address.includes(".")) return address.slice("::ffff:".length);
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(":")}::/64`;
}

function refuse(socket: Socket, cap: "total" | "per_ip", limit: number) {
  refusedSockets.add(socket);
  connectionMetrics.refused.inc({ cap });
  const refusal = new AppError("service_unavailable", "too many connections; retry shortly", {
    constraint: cap === "total" ? "connections" : "connections_per_ip",
    limit,
  });
  socket.end(rawErrorResponse(refusal, { "Retry-After": "1" }));
  socket.setTimeout(REFUSED_LINGER_MS, () => socket.destroy());
}

/**
 * Caps the connections `server` holds, in all and per client: a connection over a cap is answered 503
 * `service_unavailable` in the error format and closed, before any byte of it is read, so a flood of idle or
 * slow sockets can neither exhaust the process's descriptors nor take every slot from the other clients.
 */
export function limitConnections(server: Server, limits: Partial<ConnectionLimits> = {}) {
  const { total, perIp } = { ...defaultConnectionLimits, ...limits };
  const perClient = new Map<string, number>();
  let open = 0;
  const count = () => open;
  limited.add(count);
  server.once("close", () => limited.delete(count));
  // Before Node's HTTP server reads the socket.
  server.prependListener("connection", (socket: Socket) => {
    const client = clientOf(socket.remoteAddress);
    const held = perClient.get(client) ?? 0;
    if (open >= total) return refuse(socket, "total", total);
    if (held >= perIp) return refuse(socket, "per_ip", perIp);
    open++;
    perClient.set(client, held + 1);
    socket.once("close", () => {
      open--;
      const left = (perClient.get(client) ?? 1) - 1;
      if (left === 0) perClient.delete(client);
      else perClient.set(client, left);
    });
  });
}

// The load generator for `create-intent`, in a process of its own: it signs every request (HMAC scheme 1) with a
// fresh merchant_ref_id and Idempotency-Key, which autocannon's command line cannot do.
// Without `rate`: autocannon, as fast as `connections` allow (the peak). With `rate`: requests sent at even intervals
// (autocannon's rate sends each second's quota in one burst), latency counted from when a request was due. The
// paced mode signs every request before it starts and speaks HTTP/1.1 on raw keep-alive sockets: the generator
// shares two cores with the server and PostgreSQL, and Node's HTTP client cost as much CPU as a third of the server.
import { randomUUID } from "node:crypto";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { signatureV1 } from "@pos-cloud/rest-compat";
import autocannon from "autocannon";

const { baseUrl, partner, storeCode, connections, seconds, rate } = JSON.parse(process.argv[2]!);
const path = "/v1/payment_intents";

function signedCreate() {
  const reference = randomUUID();
  const body = JSON.stringify({
    amount: 1500,
    currency: "JPY",
    payment_method_types: ["qr_mpm"],
    merchant_ref_id: reference,
    merchant_store_id: storeCode,
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = signatureV1(partner.secret, "POST", path, timestamp, Buffer.from(body));
  return {
    body,
    headers: {
      "content-type": "application/json",
      "idempotency-key": reference,
      authorization: `HMAC-SHA256 ${partner.client_id}:${timestamp}:${signature}`,
    },
  };
}

async function atPeak() {
  return autocannon({
    url: baseUrl,
    connections,
    duration: seconds,
    requests: [{ method: "POST", path, setupRequest: (request) => ({ ...request, ...signedCreate() }) }],
  });
}

interface Connection {
  send(index: number): void;
}

/** A keep-alive connection that sends `requests[index]` and reports each complete response with its index. */
function connect(
  url: URL,
  requests: Buffer[],
  onResponse: (connection: Connection, index: number, status: number) => void,
): Promise<Connection> {
  return new Promise((resolve, reject) => {
    let received: Buffer = Buffer.alloc(0);
    let current = -1;
    const connection: Connection = {
      send(index) {
        current = index;
        socket.write(requests[index]!);
      },
    };
    const socket = net.connect(Number(url.port), url.hostname, () => resolve(connection));
    socket.setNoDelay(true);
    socket.once("error", reject);
    socket.once("close", () => {
      throw new Error("the server closed a keep-alive connection");
    });
    socket.on("data", (chunk: Buffer) => {
      received = received.length > 0 ? Buffer.concat([received, chunk]) : chunk;
      const headEnd = received.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const head = received.subarray(0, headEnd).toString("latin1");
      const end = headEnd + 4 + Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (received.length < end) return;
      received = Buffer.alloc(0);
      onResponse(connection, current, Number(head.slice(9, 12)));
    });
  });
}

async function paced() {
  const url = new URL(baseUrl);
  const requests = Array.from({ length: rate * seconds }, () => {
    const { body, headers } = signedCreate();
    const head = Object.entries({ host: url.host, ...headers, "content-length": Buffer.byteLength(body) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    return Buffer.from(`POST ${path} HTTP/1.1\r\n${head}\r\n${body}`);
  });
  // Signing thousands of requests leaves garbage the generator's V8 collects in the next moments; measured from the
  // first request, that collection delayed the first 50 to 200 ms of every run.
  await sleep(500);
  const due: number[] = [];
  const latencies: number[] = [];
  let non2xx = 0;
  const idle: Connection[] = [];
  const queued: number[] = [];
  let allAnswered!: () => void;
  const answered = new Promise<void>((resolve) => {
    allAnswered = resolve;
  });
  const dispatch = (connection: Connection, index: number | undefined) =>
    index === undefined ? idle.push(connection) : connection.send(index);
  const opened = Array.from({ length: connections }, () =>
    connect(url, requests, (connection, index, status) => {
      latencies.push(performance.now() - due[index]!);
      if (status < 200 || status > 299) non2xx++;
      if (latencies.length === requests.length) allAnswered();
      dispatch(connection, queued.shift());
    }),
  );
  idle.push(...(await Promise.all(opened)));
  const started = performance.now();
  for (let i = 0; i < requests.length; i++) {
    due[i] = started + (i * 1000) / rate;
    const wait = due[i]! - performance.now();
    if (wait > 0) await sleep(wait);
    // First in, first out, so every connection stays busy enough for the server's keep-alive timeout.
    const connection = idle.shift();
    if (connection) connection.send(i);
    else queued.push(i);
  }
  await answered;
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
  return { requests: { average: latencies.length / elapsed }, latency: { p50: at(0.5), p99: at(0.99) }, non2xx };
}

const result = rate ? await paced() : await atPeak();
process.stdout.write(JSON.stringify(result));
process.exit(0);

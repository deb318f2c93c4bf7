// The load generator for `create-intent`, in a process of its own: it signs every request (HMAC scheme 1) with a
// fresh merchant_ref_id and Idempotency-Key, which autocannon's command line cannot do.
// Without `rate`: autocannon, as fast as `connections` allow (the peak). With `rate`: requests sent at even intervals
// (autocannon's rate sends each second's quota in one burst), latency counted from when a request was due.
import { randomUUID } from "node:crypto";
import http from "node:http";
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

async function paced() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const send = () =>
    new Promise<number>((resolve, reject) => {
      const { body, headers } = signedCreate();
      const request = http.request(`${baseUrl}${path}`, { method: "POST", headers, agent }, (response) => {
        response.resume();
        response.once("end", () => resolve(response.statusCode ?? 0));
      });
      request.once("error", reject);
      request.end(body);
    });
  const latencies: number[] = [];
  let non2xx = 0;
  const sent: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(
      send().then((status) => {
        latencies.push(performance.now() - due);
        if (status < 200 || status > 299) non2xx++;
      }),
    );
  }
  await Promise.all(sent);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
  const elapsed = (performance.now() - started) / 1000;
  return { requests: { average: latencies.length / elapsed }, latency: { p50: at(0.5), p99: at(0.99) }, non2xx };
}

process.stdout.write(JSON.stringify(rate ? await paced() : await atPeak()));

// npm run gw -- <METHOD> <PATH> [JSON body] [--idempotency-key <key>]
// Sends one HMAC-signed request to the running platform as the demo partner (DATA_DIR/demo.json) and prints the
// status, the headers worth seeing and the body.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { signatureV1 } from "@pos-cloud/rest-compat";
import type { DemoFile } from "./demo";
import { loadEnvironment } from "./environment";

const usage = "usage: npm run gw -- <GET|POST|PUT|DELETE> <path> ['<json body>'] [--idempotency-key <key>]";
const args = process.argv.slice(2);
const keyAt = args.indexOf("--idempotency-key");
const idempotencyKey = keyAt >= 0 ? args.splice(keyAt, 2)[1] : undefined;
const [method, target, body = ""] = args;
if (!method || !target?.startsWith("/")) {
  console.error(usage);
  process.exit(2);
}

const config = loadEnvironment();
const demoPath = join(config.dataDir, "demo.json");
if (!existsSync(demoPath)) {
  console.error(`no ${demoPath}: start the platform once with DEMO=on (npm start)`);
  process.exit(1);
}
const { partner } = JSON.parse(readFileSync(demoPath, "utf8")) as Partial<DemoFile>;
if (!partner) {
  console.error(`${demoPath} has no partner: it predates the gateway; remove ${config.dataDir} and start again`);
  process.exit(1);
}
const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
const upperMethod = method.toUpperCase();
const timestamp = String(Math.floor(Date.now() / 1000));
const signature = signatureV1(partner.secret, upperMethod, target, timestamp, Buffer.from(body));

const response = await fetch(`http://${host}:${config.port}${target}`, {
  method: upperMethod,
  headers: {
    authorization: `HMAC-SHA256 ${partner.client_id}:${timestamp}:${signature}`,
    ...(body ? { "content-type": "application/json" } : {}),
    ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
  },
  body: body || undefined,
}).catch((error: Error) => {
  console.error(`cannot reach the platform on ${host}:${config.port} (is npm start running?): ${error.message}`);
  process.exit(1);
});

console.log(`${response.status} ${response.statusText}`);
for (const name of [
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after",
  "idempotent-replayed",
]) {
  const value = response.headers.get(name);
  if (value !== null) console.log(`${name}: ${value}`);
}
const text = await response.text();
try {
  console.log(JSON.stringify(JSON.parse(text), null, 2));
} catch {
  console.log(text);
}

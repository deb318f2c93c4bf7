// npm run gw -- <METHOD> <PATH> [JSON body] [--idempotency-key <key>]
// Sends one HMAC-signed request to the running platform as the demo partner (DATA_DIR/demo.json) and prints the
// status, the headers worth seeing and the body. A rotation of the demo's key (POST /v1/api_key/rotate) writes the
// new secret to demo.json: it is shown once, and the old one stops signing 7 days later.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
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
const demo = JSON.parse(readFileSync(demoPath, "utf8")) as Partial<DemoFile>;
const { partner } = demo;
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
let answer: { secret?: string } | undefined;
try {
  answer = JSON.parse(text);
  console.log(JSON.stringify(answer, null, 2));
} catch {
  console.log(text);
}
if (upperMethod === "POST" && target === "/v1/api_key/rotate" && response.status === 201 && answer?.secret) {
  const next = { ...demo, partner: { ...partner, secret: answer.secret } };
  writeFileSync(demoPath, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  console.log(`the new secret is now in ${demoPath}; the old one signs for 7 more days at most`);
}

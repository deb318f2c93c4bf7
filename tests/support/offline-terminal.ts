// A terminal's app as a process of its own, for tests that kill it: it opens the offline queue in QUEUE_FILE (the SDK's
// file store), uploads it to BASE_URL as CLIENT_ID with PRIVATE_JWK, prints a line per entry uploaded or refused, and
// exits once every entry is done or refused. STALL_AT="<path>:<n>" makes the n-th POST to that path stop for good after the
// platform answered it, before the queue hears the answer: the moment a crash costs most (`stalled` is printed).
import { createTerminalClient, openOfflineQueue } from "@pos-cloud/terminal-sdk";
import { fileStore } from "@pos-cloud/terminal-sdk/node";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const [stallPath, stallAt] = (process.env.STALL_AT ?? "").split(":");
let posts = 0;
const stallingFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await fetch(request);
  if (request.method === "POST" && new URL(request.url).pathname === stallPath && ++posts === Number(stallAt)) {
    console.log("stalled");
    await new Promise(() => {});
  }
  return response;
};

const terminal = createTerminalClient({
  baseUrl: env("BASE_URL"),
  clientId: env("CLIENT_ID"),
  privateKey: JSON.parse(env("PRIVATE_JWK")),
  fetch: stallingFetch,
});
const queue = await openOfflineQueue(terminal, {
  store: fileStore(env("QUEUE_FILE")),
  onUploaded: (entry, result) => console.log(`uploaded ${entry.kind} ${entry.id} ${result.id}`),
  onRefused: (entry, error) => console.log(`refused ${entry.kind} ${entry.id} ${error.code}`),
  backoff: () => new Promise((resolve) => setTimeout(resolve, 50)),
});
console.log(`running with ${queue.entries().length} entries`);
await queue.upload();
console.log("queue settled");

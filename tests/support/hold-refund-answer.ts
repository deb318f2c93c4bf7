/**
 * Preloaded (`node --import`) into a platform process that a test then kills (tests/e2e/cluster-fault-refund-kill):
 * the POS's refund request reaches the gateway, which makes the refund, but the gateway's answer never reaches the
 * POS. The process prints `refund answer held` and waits, so that a SIGKILL lands exactly between the refund's record
 * and the gateway's answer, the window a real crash may hit.
 */
const realFetch = globalThis.fetch;
const refundPath = /\/v1\/payment_intents\/[^/]+\/refund$/;

globalThis.fetch = async (input, init) => {
  const response = await realFetch(input, init);
  const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  if ((init?.method ?? "GET").toUpperCase() === "POST" && refundPath.test(url.pathname)) {
    await response.text();
    process.stdout.write(`refund answer held (${response.status})\n`);
    return new Promise<Response>(() => {});
  }
  return response;
};

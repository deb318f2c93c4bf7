import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { signScheme1 } from "@pos-cloud/common";
import { loggedDuring } from "@pos-cloud/test-support/log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayClient } from "./gateway.client";
import type { GatewayCredential, GatewayCredentialService } from "./gateway-credential.service";

// Issue 32: a POS process that read the sync key just before another process renewed it, and signs with it after the
// old key was revoked, reads its database again on the gateway's 401 instead of failing for the rest of its minute.
const old: GatewayCredential = { clientId: "pos-gateway-payments", secret: "old-secret-0123456789" };
const renewed: GatewayCredential = { clientId: "pos-gateway-payments", secret: "new-secret-0123456789" };
let requests = 0;
/** What the gateway answers a call it accepts. */
let accepted: unknown = { id: "pi_1", status: "requires_capture", amount: 100 };

/** A gateway that takes only the renewed secret's signatures, as one does once the old key is revoked. */
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    requests += 1;
    const [, timestamp, signature] = String(request.headers.authorization).split(":");
    const body = Buffer.concat(chunks).toString("utf8");
    const expected = signScheme1(renewed.secret, request.method!, request.url!, Number(timestamp), body);
    const valid = signature === expected;
    response.writeHead(valid ? 200 : 401, { "content-type": "application/json" });
    response.end(JSON.stringify(valid ? accepted : { code: "api_key_revoked", message: "x" }));
  });
});
let url: string;
beforeAll(async () => {
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

/** Credentials whose cache still holds `cached` while the database has `newest`. */
const credentials = (cached: GatewayCredential, newest: GatewayCredential) =>
  ({ current: async () => cached, fresh: async () => newest }) as unknown as GatewayCredentialService;

describe("POS's gateway client", () => {
  it("reads the newest credential once on a 401 and signs the call again with it", async () => {
    requests = 0;
    const intent = await gatewayClient(credentials(old, renewed), url).createIntent({ amount: 100 }, "pos-payment-1");
    expect(intent.id).toBe("pi_1");
    expect(requests).toBe(2);
  });

  it("fails as unavailable, after one call, when the database has nothing newer", async () => {
    requests = 0;
    const call = gatewayClient(credentials(old, old), url).createIntent({ amount: 100 }, "pos-payment-2");
    const logged = await loggedDuring(() => expect(call).rejects.toMatchObject({ code: "service_unavailable" }));
    expect(logged).toContain("the payment gateway refused POS");
    expect(requests).toBe(1);
  });

  it("reads the gateway's answer with the public intent's schema: another shape is a bad gateway, not a value", async () => {
    accepted = { id: "pi_2", status: "succeeded", amount: "100" };
    const call = gatewayClient(credentials(renewed, renewed), url).createIntent({ amount: 100 }, "pos-payment-3");
    await expect(call).rejects.toMatchObject({
      code: "bad_gateway",
      details: { issues: expect.stringContaining("amount") },
    });
    accepted = { id: "pi_2", status: "succeeded", amount: 100, payment_token: { token: "pt_1" }, internal: "x" };
    const intent = await gatewayClient(credentials(renewed, renewed), url).createIntent(
      { amount: 100 },
      "pos-payment-4",
    );
    expect(intent).toEqual({ id: "pi_2", status: "succeeded", amount: 100, payment_token: { token: "pt_1" } });
  });
});

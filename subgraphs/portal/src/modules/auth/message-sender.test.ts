import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggedDuring } from "../../../../../tests/support/log";
import { recordingMessageSender, webhookMessageSender } from "./message-sender";

describe("message senders", () => {
  const received: { headers: IncomingMessage["headers"]; body: unknown }[] = [];
  let status = 202;
  const relay = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    received.push({ headers: req.headers, body: JSON.parse(body) });
    res.writeHead(status).end();
  });
  let url: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/messages`;
  });
  afterAll(() => new Promise<void>((resolve) => relay.close(() => resolve())));

  const message = { channel: "sms" as const, to: "+81312345678", subject: "code", text: "Your login code is 123456." };

  it("posts each message to the configured relay with its token", async () => {
    await webhookMessageSender(url, "relay-token").send(message);
    expect(received.at(-1)).toMatchObject({ body: message, headers: { authorization: "Bearer relay-token" } });
  });

  it("fails the send when the relay refuses, as bad_gateway", async () => {
    status = 500;
    await expect(webhookMessageSender(url).send(message)).rejects.toMatchObject({ code: "bad_gateway" });
  });

  it("records messages newest first when nothing is configured", async () => {
    const sender = recordingMessageSender();
    await sender.send(message);
    await sender.send({ ...message, to: "+81300000000" });
    expect(sender.messages().map((m) => m.to)).toEqual(["+81300000000", "+81312345678"]);
  });

  it("never writes a recorded code or its recipient to the log", async () => {
    const logged = await loggedDuring(() => recordingMessageSender().send(message));
    expect(logged).not.toMatch(/123456|\+81312345678/);
  });
});

import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterEach, expect, it } from "vitest";
import { readRawBody } from "./http";

let server: http.Server | undefined;
afterEach(() => server?.close());

it("reads a body the client abandons halfway as the client's error, not the platform's", async () => {
  const outcome = new Promise<unknown>((resolve) => {
    server = http.createServer((req) => {
      readRawBody(req).then(resolve, resolve);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server!.address() as AddressInfo;
  const socket = net.connect(port, "127.0.0.1", () => {
    socket.write("POST /v1/payment_intents HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n");
    socket.write('content-length: 100\r\n\r\n{"amount":', () => setImmediate(() => socket.destroy()));
  });
  expect(await outcome).toMatchObject({
    code: "invalid_request",
    details: { constraint: "body_incomplete" },
  });
});

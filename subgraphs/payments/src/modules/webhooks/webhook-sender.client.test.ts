import { describe, expect, it } from "vitest";
import { publicLookup, sendWebhook } from "./webhook-sender.client";

describe("posting a webhook to public addresses only", () => {
  it("refuses at connection time a name that resolves to a private address", async () => {
    const error = await new Promise((resolve) => publicLookup("localhost", {}, (failure) => resolve(failure)));
    expect(error).toMatchObject({ name: "RefusedAddressError", message: "localhost is not a public address" });
  });

  it("does not even try an address written in the URL that is not public", async () => {
    const options = { timeoutMs: 1000, allowPrivate: false };
    expect(await sendWebhook("https://[::ffff:10.0.0.1]/hooks", {}, "{}", options)).toEqual({
      delivered: false,
      error: "::ffff:a00:1 is not a public address",
    });
  });
});

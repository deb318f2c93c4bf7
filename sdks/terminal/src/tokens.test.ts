import { describe, expect, it } from "vitest";
import { generateDeviceKeyPair } from "./assertion";
import { deviceApi, posCalls } from "./client";
import { base64urlJson, decodeBase64urlJson } from "./encoding";
import { TerminalApiError } from "./errors";

/** A platform in a function: its token endpoint issues 90 s tokens; `orders` answers POST /api/v1/orders. */
function fakePlatform(orders: (request: Request, n: number) => Response = () => Response.json({}, { status: 201 })) {
  const assertions: { jti: string; iat: number }[] = [];
  const orderRequests: Request[] = [];
  let pending: (() => void)[] = [];
  let held = false;
  const fetch = async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.url.endsWith("/api/v1/auth/device/token")) {
      const form = new URLSearchParams(await request.text());
      const claims = decodeBase64urlJson(form.get("client_assertion")?.split(".")[1] ?? "") as {
        jti: string;
        iat: number;
      };
      assertions.push(claims);
      if (held) await new Promise<void>((resolve) => pending.push(resolve));
      const token = `h.${base64urlJson({ sub: "device-1", store_id: 7, n: assertions.length })}.s`;
      return Response.json({ access_token: token, token_type: "Bearer", expires_in: 90 });
    }
    orderRequests.push(request);
    return orders(request, orderRequests.length);
  };
  return {
    fetch: fetch as typeof globalThis.fetch,
    assertions,
    orderRequests,
    /** Token requests wait until `release` while held. */
    hold: () => {
      held = true;
    },
    release: () => {
      held = false;
      for (const resolve of pending.splice(0)) resolve();
      pending = [];
    },
  };
}

async function client(platform: ReturnType<typeof fakePlatform>, now: () => number) {
  const { privateKey } = await generateDeviceKeyPair();
  const { api, tokens } = deviceApi({
    baseUrl: "https://pos.test",
    clientId: "c-1",
    privateKey,
    fetch: platform.fetch,
    now,
  });
  return { tokens, pos: posCalls(api) };
}

const bearerOf = (request: Request) => request.headers.get("authorization");
const tokenNumber = (token: string) => (decodeBase64urlJson(token.split(".")[1] ?? "") as { n: number }).n;

describe("the device token", () => {
  it("is renewed once 75 % of its life has passed, by one request however many calls wait for it", async () => {
    const platform = fakePlatform();
    let now = 1_000_000;
    const { tokens } = await client(platform, () => now);
    const first = await tokens.token();
    now += 67_499; // 75 % of 90 s is 67.5 s
    expect(await tokens.token()).toBe(first);
    expect(platform.assertions).toHaveLength(1);

    now += 1;
    platform.hold();
    const waiting = Promise.all([tokens.token(), tokens.token(), tokens.token()]);
    await expect.poll(() => platform.assertions.length).toBe(2);
    platform.release();
    const renewed = await waiting;
    expect(new Set(renewed)).toEqual(new Set([renewed[0]]));
    expect(tokenNumber(renewed[0] ?? "")).toBe(2);
    expect(platform.assertions).toHaveLength(2);
    // Each assertion is signed at the clock's time, with its own jti.
    expect(platform.assertions.map(({ iat }) => iat)).toEqual([1000, 1067]);
    expect(platform.assertions[0]?.jti).not.toBe(platform.assertions[1]?.jti);
  });

  it("keeps the held token while it lives when its renewal fails", async () => {
    let failing = false;
    const platform = fakePlatform();
    const fetch: typeof globalThis.fetch = async (input, init) =>
      failing
        ? Response.json({ code: "internal_error", message: "down" }, { status: 503 })
        : platform.fetch(input, init);
    let now = 0;
    const { privateKey } = await generateDeviceKeyPair();
    const { tokens } = deviceApi({ baseUrl: "https://pos.test", clientId: "c-1", privateKey, fetch, now: () => now });
    const first = await tokens.token();
    failing = true;
    now = 80_000;
    expect(await tokens.token()).toBe(first);
    now = 90_000;
    await expect(tokens.token()).rejects.toMatchObject({ status: 503, code: "internal_error" });
  });
});

describe("a refused token", () => {
  it("leads to one new assertion and one more attempt with the same Idempotency-Key", async () => {
    const platform = fakePlatform((_request, n) =>
      n === 1
        ? Response.json({ code: "unauthorized", message: "token revoked" }, { status: 401 })
        : Response.json({ id: "o-1" }, { status: 201 }),
    );
    const { pos } = await client(platform, () => 0);
    expect(await pos.orders.create({ order_type: "takeaway", items: [] })).toEqual({ id: "o-1" });
    expect(platform.assertions).toHaveLength(2);
    const [first, second] = platform.orderRequests;
    expect(bearerOf(first as Request)).not.toBe(bearerOf(second as Request));
    const key = first?.headers.get("idempotency-key");
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.headers.get("idempotency-key")).toBe(key);
    expect(await second?.json()).toEqual({ order_type: "takeaway", items: [] });
  });

  it("twice is the caller's, as a typed error with the platform's code", async () => {
    const platform = fakePlatform(() =>
      Response.json({ code: "unauthorized", message: "device suspended", details: {} }, { status: 401 }),
    );
    const { pos } = await client(platform, () => 0);
    const refused = await pos.orders.create({ order_type: "takeaway", items: [] }, "my-key").catch((error) => error);
    expect(refused).toBeInstanceOf(TerminalApiError);
    expect(refused).toMatchObject({ status: 401, code: "unauthorized", message: "device suspended" });
    expect(platform.assertions).toHaveLength(2);
    expect(platform.orderRequests.map((request) => request.headers.get("idempotency-key"))).toEqual([
      "my-key",
      "my-key",
    ]);
  });
});

import { type Role, roles } from "@pos-cloud/common";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueCode } from "../support/environment";
import { logIn, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededDevice, type SeededStore, seed } from "../support/seed";

const tiers = ["L0", "L1", "L2", "L3", "L4", "L5", "L6"] as const;
type Tier = (typeof tiers)[number];
type Expected = Record<Tier, number>;

/** Expected status by tier: `by(200, "L0", "L1")` is 200 for those tiers and 403 for the others. */
const by = (status: number, ...allowed: Tier[]): Expected =>
  Object.fromEntries(tiers.map((t) => [t, allowed.includes(t) ? status : 403])) as Expected;
const all = (status: number) => by(status, ...tiers);
const upTo = (tier: Tier) => tiers.slice(0, tiers.indexOf(tier) + 1);

// Every portal endpoint of this area, called by each tier on a target inside its scope (the home branch: a store in
// an area, its terminal) and outside it (a second PSP's branch), with tokens from real logins that the edge verifies.
describe("portal endpoints by tier, inside and outside scope", () => {
  let platform: TestPlatform;
  let home: SeededStore;
  let homeDevice: SeededDevice;
  const tokens = {} as Record<Tier, string>;
  const away = { psp: 0, merchant: 0, store: 0, device: "" };
  let sibling: number;

  const call = async (tier: Tier, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[tier]}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    const fixtures = seed(platform);
    home = await fixtures.store();
    homeDevice = await fixtures.device(home);
    // Real logins, one per tier: L3 oversees the home store's area (the sibling store created below is in none),
    // L4 to L6 work in the home store.
    const area = await fixtures.area(home);
    for (const role of Object.keys(roles) as Role[]) {
      const user = await fixtures.user(role, home, area);
      tokens[`L${roles[role]}`] = (await logIn(platform.baseUrl, user)).access_token;
    }
    away.psp = (await call("L0", "POST", "/api/v1/psps", { code: uniqueCode("P"), name: "away" })).body.id;
    away.merchant = (
      await call("L0", "POST", "/api/v1/merchants", { psp_id: away.psp, code: uniqueCode("M"), name: "away" })
    ).body.id;
    away.store = (
      await call("L0", "POST", "/api/v1/stores", { merchant_id: away.merchant, code: uniqueCode("S"), name: "away" })
    ).body.id;
    away.device = (await call("L0", "POST", "/api/v1/terminals", terminal(away.store))).body.id;
    sibling = (
      await call("L0", "POST", "/api/v1/stores", {
        merchant_id: home.merchant_id,
        code: uniqueCode("S"),
        name: "sibling",
      })
    ).body.id;
  });
  afterAll(() => platform?.close());

  const terminal = (store_id: number) => ({ serial_number: uniqueCode("SN"), model: "m", manufacturer: "x", store_id });
  const freshStore = async (merchant_id: number) =>
    (await call("L0", "POST", "/api/v1/stores", { merchant_id, code: uniqueCode("S"), name: "s" })).body.id;
  const freshMerchant = async (psp_id: number) =>
    (await call("L0", "POST", "/api/v1/merchants", { psp_id, code: uniqueCode("M"), name: "m" })).body.id;
  const activationCode = async () => {
    const { publicKey } = await generateKeyPair("ES256");
    const response = await fetch(`${platform.baseUrl}/api/v1/device/provision/generateActivationCode`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        serial_number: uniqueCode("SN"),
        public_key_jwk: await exportJWK(publicKey),
        model: "m",
        manufacturer: "x",
      }),
    });
    return ((await response.json()) as { activation_code: string }).activation_code;
  };
  const version = () => ({
    app_name: "qr-app",
    version_code: Math.floor(Math.random() * 1e9) + 1,
    version_name: "1",
    apk_url: "https://cdn.example.com/a.apk",
    apk_size: 1,
    apk_checksum: `sha256:${"a".repeat(64)}`,
    min_os_version: "11",
  });

  const cases: [string, (t: Tier) => Promise<number>, Expected][] = [
    ["GET /psps", async (t) => (await call(t, "GET", "/api/v1/psps")).status, all(200)],
    [
      "POST /psps",
      async (t) => (await call(t, "POST", "/psps", { code: uniqueCode("P"), name: t })).status,
      by(201, "L0"),
    ],
    ["GET /merchants", async (t) => (await call(t, "GET", "/api/v1/merchants")).status, all(200)],
    [
      "POST /merchants inside",
      async (t) =>
        (await call(t, "POST", "/merchants", { psp_id: home.psp_id, code: uniqueCode("M"), name: t })).status,
      by(201, "L0", "L1"),
    ],
    [
      "POST /merchants outside",
      async (t) => (await call(t, "POST", "/merchants", { psp_id: away.psp, code: uniqueCode("M"), name: t })).status,
      by(201, "L0"),
    ],
    [
      "GET /merchants/{id} inside",
      async (t) => (await call(t, "GET", `/merchants/${home.merchant_id}`)).status,
      by(200, "L0", "L1", "L2"),
    ],
    [
      "GET /merchants/{id} outside",
      async (t) => (await call(t, "GET", `/merchants/${away.merchant}`)).status,
      by(200, "L0"),
    ],
    [
      "PATCH /merchants/{id} inside",
      async (t) => (await call(t, "PATCH", `/merchants/${home.merchant_id}`, { legal_name: t })).status,
      by(200, "L0", "L1", "L2"),
    ],
    [
      "PATCH /merchants/{id} outside",
      async (t) => (await call(t, "PATCH", `/merchants/${away.merchant}`, { legal_name: t })).status,
      by(200, "L0"),
    ],
    [
      "DELETE /merchants/{id} inside",
      async (t) => (await call(t, "DELETE", `/merchants/${await freshMerchant(home.psp_id)}`)).status,
      by(200, "L0", "L1"),
    ],
    [
      "DELETE /merchants/{id} outside",
      async (t) => (await call(t, "DELETE", `/merchants/${await freshMerchant(away.psp)}`)).status,
      by(200, "L0"),
    ],
    ["GET /stores", async (t) => (await call(t, "GET", "/stores")).status, all(200)],
    [
      "POST /stores inside",
      async (t) =>
        (await call(t, "POST", "/stores", { merchant_id: home.merchant_id, code: uniqueCode("S"), name: t })).status,
      by(201, "L0", "L1", "L2"),
    ],
    [
      "POST /stores outside",
      async (t) =>
        (await call(t, "POST", "/stores", { merchant_id: away.merchant, code: uniqueCode("S"), name: t })).status,
      by(201, "L0"),
    ],
    ["GET /stores/{id} inside", async (t) => (await call(t, "GET", `/stores/${home.id}`)).status, all(200)],
    [
      "GET /stores/{id} sibling",
      async (t) => (await call(t, "GET", `/stores/${sibling}`)).status,
      by(200, "L0", "L1", "L2"),
    ],
    ["GET /stores/{id} outside", async (t) => (await call(t, "GET", `/stores/${away.store}`)).status, by(200, "L0")],
    [
      "PATCH /stores/{id} inside",
      async (t) => (await call(t, "PATCH", `/stores/${home.id}`, { contact_phone: "+81300000000" })).status,
      by(200, ...upTo("L4")),
    ],
    [
      "PATCH /stores/{id} outside",
      async (t) => (await call(t, "PATCH", `/stores/${away.store}`, { contact_phone: "+81300000000" })).status,
      by(200, "L0"),
    ],
    [
      "DELETE /stores/{id} inside",
      async (t) => (await call(t, "DELETE", `/stores/${await freshStore(home.merchant_id)}`)).status,
      by(200, "L0", "L1", "L2"),
    ],
    [
      "DELETE /stores/{id} outside",
      async (t) => (await call(t, "DELETE", `/stores/${await freshStore(away.merchant)}`)).status,
      by(200, "L0"),
    ],
    [
      "GET /stores/{id}/devices inside",
      async (t) => (await call(t, "GET", `/stores/${home.id}/devices`)).status,
      all(200),
    ],
    [
      "GET /stores/{id}/devices outside",
      async (t) => (await call(t, "GET", `/stores/${away.store}/devices`)).status,
      by(200, "L0"),
    ],
    ["GET /terminals", async (t) => (await call(t, "GET", "/terminals")).status, all(200)],
    [
      "POST /terminals inside",
      async (t) => (await call(t, "POST", "/terminals", terminal(home.id))).status,
      by(201, ...upTo("L4")),
    ],
    [
      "POST /terminals outside",
      async (t) => (await call(t, "POST", "/terminals", terminal(away.store))).status,
      by(201, "L0"),
    ],
    ["GET /terminals/{id} inside", async (t) => (await call(t, "GET", `/terminals/${homeDevice.id}`)).status, all(200)],
    [
      "GET /terminals/{id} outside",
      async (t) => (await call(t, "GET", `/terminals/${away.device}`)).status,
      by(200, "L0"),
    ],
    [
      "PATCH /terminals/{id} inside",
      async (t) =>
        (await call(t, "PATCH", `/terminals/${homeDevice.id}`, { config: { receipt_delivery: ["print"] } })).status,
      by(200, ...upTo("L4")),
    ],
    [
      "PATCH /terminals/{id} outside",
      async (t) =>
        (await call(t, "PATCH", `/terminals/${away.device}`, { config: { receipt_delivery: ["print"] } })).status,
      by(200, "L0"),
    ],
    [
      "POST /terminals/{id}/suspend then resume inside",
      async (t) => {
        const suspended = await call(t, "POST", `/terminals/${homeDevice.id}/suspend`);
        if (suspended.status === 200)
          expect((await call(t, "POST", `/terminals/${homeDevice.id}/resume`)).status).toBe(200);
        return suspended.status;
      },
      by(200, ...upTo("L4")),
    ],
    // The away device is still unprovisioned: who gets past the scope check meets the lifecycle (409).
    [
      "POST /terminals/{id}/suspend outside",
      async (t) => (await call(t, "POST", `/terminals/${away.device}/suspend`)).status,
      by(409, "L0"),
    ],
    [
      "POST /terminals/{id}/transfer inside (to a sibling store and back)",
      async (t) => {
        const moved = await call(t, "POST", `/terminals/${homeDevice.id}/transfer`, { store_id: sibling });
        if (moved.status === 200) {
          await call(t, "POST", `/terminals/${homeDevice.id}/transfer`, { store_id: home.id });
        }
        return moved.status;
      },
      by(200, "L0", "L1", "L2"),
    ],
    [
      "POST /terminals/{id}/transfer outside",
      async (t) => (await call(t, "POST", `/terminals/${away.device}/transfer`, { store_id: away.store })).status,
      by(409, "L0"),
    ],
    [
      "DELETE /terminals/{id} inside (an unprovisioned one: 409 once past the scope check)",
      async (t) => {
        const { id } = (await call("L0", "POST", "/terminals", terminal(home.id))).body;
        return (await call(t, "DELETE", `/terminals/${id}`)).status;
      },
      by(409, ...upTo("L4")),
    ],
    [
      "DELETE /terminals/{id} outside",
      async (t) => (await call(t, "DELETE", `/terminals/${away.device}`)).status,
      by(409, "L0"),
    ],
    [
      "POST /device/provision/activate inside",
      async (t) =>
        (
          await call(t, "POST", "/device/provision/activate", {
            activation_code: await activationCode(),
            store_id: home.id,
          })
        ).status,
      by(200, ...upTo("L4")),
    ],
    [
      "POST /device/provision/activate outside",
      async (t) =>
        (
          await call(t, "POST", "/device/provision/activate", {
            activation_code: await activationCode(),
            store_id: away.store,
          })
        ).status,
      by(200, "L0"),
    ],
    ["POST /app-updates", async (t) => (await call(t, "POST", "/app-updates", version())).status, by(201, "L0", "L1")],
    ["GET /app-updates", async (t) => (await call(t, "GET", "/app-updates")).status, by(200, "L0", "L1")],
    [
      "PATCH /app-updates/{id}",
      async (t) => {
        const { id } = (await call("L0", "POST", "/app-updates", version())).body;
        return (await call(t, "PATCH", `/app-updates/${id}`, { rollout_percentage: 10 })).status;
      },
      by(200, "L0", "L1"),
    ],
    [
      "POST /app-updates/{id}/publish",
      async (t) => {
        const { id } = (await call("L0", "POST", "/app-updates", version())).body;
        return (await call(t, "POST", `/app-updates/${id}/publish`)).status;
      },
      by(200, "L0", "L1"),
    ],
    [
      "GET /app-updates/check (device only)",
      async (t) =>
        (await call(t, "GET", `/app-updates/check?app_name=qr-app&current_version_code=1&device_id=${homeDevice.id}`))
          .status,
      all(403),
    ],
  ];

  for (const [name, run, expected] of cases) {
    it(name, async () => {
      const outcome = {} as Expected;
      // One tier at a time: some cases change shared state (suspend and resume, transfer and back).
      for (const tier of tiers) outcome[tier] = await run(tier);
      expect(outcome).toEqual(expected);
    });
  }
});

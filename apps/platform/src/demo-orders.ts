import { randomUUID } from "node:crypto";
import { logger } from "@pos-cloud/common";
import { importJWK, SignJWT } from "jose";
import type { DemoFile } from "./demo";

/**
 * A device access token for the demo terminal, obtained the way a terminal does it: an ES256 client assertion signed
 * with its private key (in demo.json), sent to the token endpoint. Issued at the platform's time (`clock`).
 */
export async function demoDeviceToken(
  demo: Pick<DemoFile, "api_url" | "device">,
  clock: () => Date = () => new Date(),
): Promise<string> {
  const tokenUrl = `${demo.api_url}/auth/device/token`;
  const issued = clock();
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: "ES256" })
    .setIssuer(demo.device.client_id)
    .setSubject(demo.device.client_id)
    .setAudience(tokenUrl)
    .setIssuedAt(issued)
    .setExpirationTime(new Date(issued.getTime() + 60_000))
    .setJti(randomUUID())
    .sign(await importJWK(demo.device.private_jwk, "ES256"));
  const response = await fetch(tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: assertion,
    }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!response.ok || !body.access_token) throw new Error(`device token: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

const ramenShop = {
  open: {
    order_type: "dine_in",
    table_number: "3",
    items: [
      { sequence: 1, item_name: "Shoyu Ramen", quantity: 2, unit_price: 980 },
      { sequence: 2, item_name: "Gyoza (6 pcs)", quantity: 1, unit_price: 480 },
      { sequence: 3, item_name: "Draft Beer", quantity: 2, unit_price: 650 },
    ],
  },
  billed: {
    order_type: "dine_in",
    table_number: "5",
    items: [
      { sequence: 1, item_name: "Tonkotsu Ramen", quantity: 1, unit_price: 1080 },
      { sequence: 2, item_name: "Karaage", quantity: 1, unit_price: 580 },
      { sequence: 3, item_name: "Oolong Tea", quantity: 1, unit_price: 300 },
    ],
  },
  // Food taken away is taxed at Japan's reduced rate.
  paid: {
    order_type: "takeaway",
    items: [{ sequence: 1, item_name: "Chashu Bento", quantity: 2, unit_price: 850 }],
  },
};

/**
 * A few orders in the demo store, so that the portal's hierarchy shows data (`open_orders_count`) and the README's
 * walkthrough has something to look at: one open at table 3, one billed at table 5, one takeaway paid in cash. They
 * are taken as the demo terminal takes orders, through the POS API, and only while the store has no order at all, so
 * a restart adds nothing. A failure is logged and start-up goes on: the demo tenant itself is there.
 */
export async function ensureDemoOrders(demo: DemoFile, clock?: () => Date): Promise<void> {
  try {
    const token = await demoDeviceToken(demo, clock);
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${demo.api_url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const answer = (await response.json()) as Record<string, unknown>;
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    if (((await call("GET", "/orders?limit=1")) as unknown as unknown[]).length > 0) return;
    const staff_code = demo.users.find((user) => user.role === "STAFF")!.login_id;
    await call("POST", "/orders", ramenShop.open);
    const billed = await call("POST", "/orders", ramenShop.billed);
    await call("POST", "/bills", { order_id: billed.id, staff_code, tax_percentage: 10 });
    const paid = await call("POST", "/orders", ramenShop.paid);
    const bill = await call("POST", "/bills", { order_id: paid.id, staff_code, tax_percentage: 8 });
    const total = bill.total_amount as number;
    await call("POST", "/payments", {
      bill_id: bill.id,
      amount: total,
      payment_method: { type: "CASH" },
      cash_received: Math.ceil(total / 1000) * 1000,
    });
  } catch (error) {
    logger.warn("the demo store's orders could not be made", { error: String(error) });
  }
}

// npm run device-token: prints a device access token for the demo terminal, obtained the way a terminal does it
// (an ES256 client assertion signed with its private key, sent to the token endpoint).
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importJWK, SignJWT } from "jose";
import type { DemoFile } from "./demo";
import { loadEnvironment } from "./environment";

const demo = JSON.parse(readFileSync(join(loadEnvironment().dataDir, "demo.json"), "utf8")) as DemoFile;
const tokenUrl = `${demo.api_url}/auth/device/token`;
const assertion = await new SignJWT({})
  .setProtectedHeader({ alg: "ES256" })
  .setIssuer(demo.device.client_id)
  .setSubject(demo.device.client_id)
  .setAudience(tokenUrl)
  .setIssuedAt()
  .setExpirationTime("60s")
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
if (!response.ok || !body.access_token) {
  console.error(`${response.status} ${JSON.stringify(body)}`);
  process.exit(1);
}
console.log(body.access_token);

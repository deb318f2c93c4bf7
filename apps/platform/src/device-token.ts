// npm run device-token: prints a device access token for the demo terminal, obtained the way a terminal does it
// (an ES256 client assertion signed with its private key, sent to the token endpoint).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DemoFile } from "./demo";
import { demoDeviceToken } from "./demo-orders";
import { loadEnvironment } from "./environment";

const demo = JSON.parse(readFileSync(join(loadEnvironment().dataDir, "demo.json"), "utf8")) as DemoFile;
try {
  console.log(await demoDeviceToken(demo));
} catch (error) {
  console.error(error instanceof Error ? error.message.replace(/^device token: /, "") : String(error));
  process.exit(1);
}

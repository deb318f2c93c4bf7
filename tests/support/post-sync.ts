/**
 * One portal process's sync, as a process of its own: `node --import tsx tests/support/post-sync.ts <json>` with
 * `{config, payload, options}` posts it with the portal's client and prints the gateway's answer, or the error and
 * exit code 1. Two of them share nothing but the gateway, as two portal processes do.
 */
import { postSync } from "../../subgraphs/portal/src/modules/gateway-sync/gateway-sync.client";

const { config, payload, options } = JSON.parse(process.argv[2] ?? "{}");
postSync(config, payload, options).then(
  (answer) => process.stdout.write(JSON.stringify(answer)),
  (error: unknown) => {
    process.stdout.write(JSON.stringify({ error: String(error) }));
    process.exitCode = 1;
  },
);

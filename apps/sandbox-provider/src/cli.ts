// npm run provider -- pay <provider_transaction_id | qr_content>
import { loadEnvironment } from "./environment";
import { runProviderCli } from "./provider-cli";

process.exitCode = await runProviderCli(process.argv.slice(2), loadEnvironment(), {
  out: (line) => console.log(line),
  error: (line) => console.error(line),
});

// npm run partner -- create <name> | list | keys <partner_id> | issue <partner_id> [<permission,...> [<store_id,...>]] | revoke <partner_id> <key_id>
// Client partners and their API keys from a shell, as a system operator manages them over /api/v1/partners; prints
// JSON. An issued key's secret is printed once, here only; a key is restricted to the permissions and stores listed
// after the partner's id (comma-separated). With embedded storage, stop the platform first.
import { runPaymentsCommand } from "./payments-command";

const keyId = process.argv[4];
const listed = (value: string | undefined) => (value ? value.split(",") : undefined);
const restriction = { permissions: listed(process.argv[4]), store_ids: listed(process.argv[5])?.map(Number) };

await runPaymentsCommand(
  "partner",
  "npm run partner -- create <name> | list | keys <partner_id> | issue <partner_id> [<permission,...> [<store_id,...>]] | revoke <partner_id> <key_id>",
  (command, target) =>
    command === "list" ||
    (["create", "keys", "issue"].includes(command ?? "") && target !== undefined) ||
    (command === "revoke" && target !== undefined && keyId !== undefined),
  async ({ partnerAdmin }, operator, command, target) => {
    const partnerId = Number(target);
    const answers: Record<string, () => Promise<unknown>> = {
      create: () => partnerAdmin.create(operator, { name: target }),
      list: async () => (await partnerAdmin.list(operator, { limit: 100 })).nodes,
      keys: () => partnerAdmin.keys(operator, partnerId),
      issue: () => partnerAdmin.issue(operator, partnerId, restriction),
      revoke: () => partnerAdmin.revoke(operator, partnerId, keyId!),
    };
    console.log(JSON.stringify(await answers[command]!(), null, 2));
  },
);

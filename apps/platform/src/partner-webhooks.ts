// npm run webhooks -- dead-letters [client_id] | replay <evt_id>
// Lists partner webhooks that failed every attempt, or sends one again (same event id and body, three attempts);
// a running platform posts it within a second (with embedded storage: when it starts again).
import { runPaymentsCommand } from "./payments-command";

await runPaymentsCommand(
  "webhooks",
  "npm run webhooks -- dead-letters [client_id] | replay <evt_id>",
  (command, target) => command === "dead-letters" || (command === "replay" && target !== undefined),
  async (payments, operator, command, target) => {
    if (command === "dead-letters") {
      const letters = await payments.apiKeyWebhooks.deadLetters(operator, target ?? null);
      for (const letter of letters) {
        const answer = letter.last_status_code ?? "no answer";
        console.log(`${letter.id}  ${letter.client_id}  ${letter.event_type}  ${answer}  ${letter.last_error ?? ""}`);
      }
      console.log(`${letters.length} dead letter(s)`);
    } else {
      const replayed = await payments.apiKeyWebhooks.replay(operator, target!);
      console.log(`${replayed.id} is due again for ${replayed.client_id}`);
    }
  },
);

// npm run outbox -- failed | replay <id> | replay --all-failed
// Lists the outbox events that failed for good, or puts them back in the publishing queue with their attempts reset;
// a running platform publishes them at once (with embedded storage: when it starts again).
import { runPaymentsCommand } from "./payments-command";

await runPaymentsCommand(
  "outbox",
  "npm run outbox -- failed | replay <id> | replay --all-failed",
  (command, target) => command === "failed" || (command === "replay" && target !== undefined),
  async (payments, operator, command, target) => {
    if (command === "failed") {
      const events = await payments.outbox.failedEvents(operator);
      for (const event of events) {
        console.log(`${event.id}  ${event.event_type}  ${event.aggregate_id}  ${event.last_error ?? ""}`);
      }
      console.log(`${events.length} failed event(s)`);
    } else {
      const input = target === "--all-failed" ? { all_failed: true } : { id: target };
      const { replayed } = await payments.outbox.replay(operator, input);
      console.log(`${replayed} event(s) back to pending`);
    }
  },
);

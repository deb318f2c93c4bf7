import { stateMachine } from "@pos-cloud/common";

/** A partner webhook delivery (one row per terminal intent event and API key). */
export const webhookDeliveryStatuses = ["pending", "delivered", "dead", "dropped"] as const;

export const webhookDeliveryMachine = stateMachine({
  name: "webhook delivery",
  states: webhookDeliveryStatuses,
  // A dead letter is not terminal: an operator or the key's admin replays it, its partner redelivers it. A delivered
  // event is not either: the partner may ask for it again (its own side lost it).
  terminal: ["dropped"],
  moves: [
    { from: "pending", event: "deliver", to: "delivered" },
    { from: "pending", event: "retry", to: "pending" },
    { from: "pending", event: "give_up", to: "dead" },
    { from: "pending", event: "drop", to: "dropped" },
    { from: "dead", event: "replay", to: "pending" },
    { from: "dead", event: "redeliver", to: "pending" },
    { from: "delivered", event: "redeliver", to: "pending" },
  ],
});

export type WebhookDeliveryEvent = Parameters<typeof webhookDeliveryMachine.transition>[1];

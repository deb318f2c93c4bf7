import { describe } from "vitest";
import { machineBehaviour } from "../../../../../tests/support/machine-behaviour";
import { webhookDeliveryMachine } from "./webhook-delivery.machine";

describe("webhookDeliveryMachine", () => {
  machineBehaviour(webhookDeliveryMachine, {
    refused: [
      ["delivered", "retry"],
      ["dropped", "replay"],
      ["pending", "replay"],
      ["dead", "deliver"],
      ["pending", "redeliver"],
      ["dropped", "redeliver"],
    ],
  });
});

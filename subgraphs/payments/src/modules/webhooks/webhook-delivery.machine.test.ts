import { machineBehaviour } from "@pos-cloud/test-support/machine-behaviour";
import { describe } from "vitest";
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

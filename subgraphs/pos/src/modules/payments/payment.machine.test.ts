import { machineBehaviour } from "@pos-cloud/test-support/machine-behaviour";
import { describe } from "vitest";
import { paymentMachine } from "./payment.machine";

describe("paymentMachine", () => {
  machineBehaviour(paymentMachine, {
    refused: [
      ["failed", "complete"],
      ["refunded", "refund_in_part"],
      ["pending", "refund_in_full"],
      ["completed", "complete"],
      ["processing", "bill_refused"],
    ],
  });
});

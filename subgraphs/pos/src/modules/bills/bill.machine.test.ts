import { machineBehaviour } from "@pos-cloud/test-support/machine-behaviour";
import { describe } from "vitest";
import { billMachine } from "./bill.machine";

describe("billMachine", () => {
  machineBehaviour(billMachine, {
    refused: [
      ["paid", "pay_in_part"],
      ["cancelled", "pay_in_full"],
      ["partial", "cancel"],
      ["paid", "split"],
      ["pending", "refund_in_part"],
      ["partial", "combine"],
    ],
  });
});

import { machineBehaviour } from "@pos-cloud/test-support/machine-behaviour";
import { describe } from "vitest";
import { posRefundMachine } from "./refund.machine";

describe("posRefundMachine", () => {
  machineBehaviour(posRefundMachine, {
    refused: [
      ["succeeded", "fail"],
      ["failed", "succeed"],
    ],
  });
});

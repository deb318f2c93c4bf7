import { describe } from "vitest";
import { machineBehaviour } from "../../../../../tests/support/machine-behaviour";
import { posRefundMachine } from "./refund.machine";

describe("posRefundMachine", () => {
  machineBehaviour(posRefundMachine, {
    refused: [
      ["succeeded", "fail"],
      ["failed", "succeed"],
    ],
  });
});

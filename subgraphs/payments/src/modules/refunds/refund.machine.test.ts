import { describe } from "vitest";
import { machineBehaviour } from "../../../../../tests/support/machine-behaviour";
import { refundMachine } from "./refund.machine";

describe("refundMachine", () => {
  machineBehaviour(refundMachine, {
    refused: [
      ["succeeded", "fail"],
      ["failed", "succeed"],
      ["succeeded", "succeed"],
    ],
  });
});

import { machineBehaviour } from "@pos-cloud/test-support/machine-behaviour";
import { describe } from "vitest";
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

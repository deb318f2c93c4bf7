import { machineBehaviour } from "@pos-cloud/test-support/machine-behaviour";
import { describe } from "vitest";
import { settlementMachine } from "./settlement.machine";

describe("settlementMachine", () => {
  machineBehaviour(settlementMachine, {
    refused: [["closed", "close"]],
  });
});

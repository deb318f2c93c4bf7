import { describe } from "vitest";
import { machineBehaviour } from "../../../../../tests/support/machine-behaviour";
import { settlementMachine } from "./settlement.machine";

describe("settlementMachine", () => {
  machineBehaviour(settlementMachine, {
    refused: [["closed", "close"]],
  });
});

import { describe } from "vitest";
import { machineBehaviour } from "../../../../../tests/support/machine-behaviour";
import { orderMachine } from "./order.machine";

describe("orderMachine", () => {
  machineBehaviour(orderMachine, {
    refused: [
      ["billed", "edit"],
      ["billed", "cancel"],
      ["completed", "reopen"],
      ["cancelled", "bill"],
      ["open", "complete"],
    ],
  });
});

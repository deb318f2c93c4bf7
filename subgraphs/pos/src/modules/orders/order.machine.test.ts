import { machineBehaviour } from "@pos-cloud/test-support/machine-behaviour";
import { describe } from "vitest";
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

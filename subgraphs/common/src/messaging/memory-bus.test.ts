import { describe } from "vitest";
import { busBehaviour } from "../../../../tests/support/bus-behaviour";
import { memoryBus } from "./memory-bus";

describe("the memory bus", () => {
  busBehaviour(async () => memoryBus());
});

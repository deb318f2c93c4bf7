import { busBehaviour } from "@pos-cloud/test-support/bus-behaviour";
import { describe } from "vitest";
import { memoryBus } from "./memory-bus";

describe("the memory bus", () => {
  busBehaviour(async () => memoryBus());
});

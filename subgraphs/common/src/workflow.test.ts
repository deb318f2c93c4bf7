import { describe, expect, it } from "vitest";
import { createStep, createWorkflow } from "./workflow";

describe("createWorkflow", () => {
  const journal: string[] = [];
  const reserve = createStep(
    "reserve",
    async (amount: number) => {
      journal.push(`reserve ${amount}`);
      return `r${amount}`;
    },
    async (reservation, amount, failure) => {
      journal.push(`release ${reservation} of ${amount} after ${failure.step}: ${String(failure.error)}`);
    },
  );
  const log = createStep("log", async (text: string) => {
    journal.push(text);
  });
  const charge = createStep(
    "charge",
    async (reservation: string) => {
      if (reservation === "r13") throw new Error("declined");
      journal.push(`charge ${reservation}`);
      return `c-${reservation}`;
    },
    async (charged) => {
      journal.push(`refund ${charged}`);
    },
  );
  const confirm = createStep("confirm", async (charged: string) => {
    if (charged === "c-r7") throw new Error("lost");
    return charged;
  });
  const pay = createWorkflow("pay", async (amount: number, run) => {
    const reservation = await run(reserve, amount);
    await run(log, "reserved");
    return run(confirm, await run(charge, reservation));
  });

  it("runs the steps in order and compensates nothing when all succeed", async () => {
    journal.length = 0;
    expect(await pay(5)).toBe("c-r5");
    expect(journal).toEqual(["reserve 5", "reserved", "charge r5"]);
  });

  it("compensates the steps done, last first, with the failure, and throws it on", async () => {
    journal.length = 0;
    await expect(pay(7)).rejects.toThrow("lost");
    expect(journal).toEqual([
      "reserve 7",
      "reserved",
      "charge r7",
      "refund c-r7",
      "release r7 of 7 after confirm: Error: lost",
    ]);
  });

  it("does not compensate the step that threw, only those before it", async () => {
    journal.length = 0;
    await expect(pay(13)).rejects.toThrow("declined");
    expect(journal).toEqual(["reserve 13", "reserved", "release r13 of 13 after charge: Error: declined"]);
  });

  it("still runs the other compensations when one fails, and throws the step's error", async () => {
    const undone: string[] = [];
    const first = createStep(
      "first",
      async () => 1,
      async () => undone.push("first"),
    );
    const broken = createStep(
      "broken",
      async () => 2,
      async () => Promise.reject(new Error("cannot undo")),
    );
    const failing = createStep("failing", async () => Promise.reject(new Error("step failed")));
    const flow = createWorkflow("flow", async (_: undefined, run) => {
      await run(first, undefined);
      await run(broken, undefined);
      return run(failing, undefined);
    });
    await expect(flow(undefined)).rejects.toThrow("step failed");
    expect(undone).toEqual(["first"]);
  });
});

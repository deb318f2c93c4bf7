import { AppError, type Move } from "@pos-cloud/common";
import { describe, expect, it } from "vitest";

interface Machine<State extends string, Event extends string> {
  states: readonly State[];
  moves: readonly Move<State, Event>[];
  terminal: ReadonlySet<string>;
  transition(current: string, event: Event): State;
}

/**
 * The behaviour every state machine keeps: each move of its table is allowed, the sampled moves the table lacks are a
 * 409 naming the current state and the event, and a terminal state is left only by the moves listed in `fromTerminal`.
 */
export function machineBehaviour<State extends string, Event extends string>(
  machine: Machine<State, Event>,
  cases: { refused: [State, Event][]; fromTerminal?: Event[] },
) {
  describe("the machine's table", () => {
    it.each(machine.moves.map((move) => [move.from, move.event, move.to]))("%s -> %s -> %s", (from, event, to) => {
      expect(machine.transition(from, event as Event)).toBe(to);
    });

    it.each(cases.refused)("refuses %s on %s with a 409 naming both", (from, event) => {
      const refused = (() => {
        try {
          machine.transition(from, event);
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ code: "invalid_state", status: 409, details: { status: from, event } });
      expect((refused as AppError).message).toContain(from);
      expect((refused as AppError).message).toContain(event);
    });

    it("has only its own states in its moves, and terminal states among them", () => {
      for (const move of machine.moves) expect(machine.states).toContain(move.from);
      for (const move of machine.moves) expect(machine.states).toContain(move.to);
      for (const state of machine.terminal) expect(machine.states).toContain(state);
    });

    it("leaves a terminal state only by the moves its table names", () => {
      const leaving = machine.moves.filter((move) => machine.terminal.has(move.from)).map((move) => move.event);
      expect([...new Set(leaving)].sort()).toEqual([...(cases.fromTerminal ?? [])].sort());
    });
  });
}

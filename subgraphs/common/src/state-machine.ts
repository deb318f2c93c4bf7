import { AppError } from "./errors";

/** One allowed move of an aggregate: from a state, on an event, to a state, with the domain event it publishes. */
export interface Move<State extends string, Event extends string> {
  from: State;
  event: Event;
  to: State;
  emits?: string;
}

/**
 * An aggregate's states and moves as one table (CONTRIBUTING.md, "One state machine per aggregate"): the only code that
 * decides a status. A move the table lacks is a 409 naming the current state and the event, never a silent update.
 */
export function stateMachine<const State extends string, const Event extends string>(definition: {
  /** How messages name the aggregate: "payment intent", "bill". */
  name: string;
  states: readonly State[];
  terminal: readonly State[];
  moves: readonly Move<State, Event>[];
}) {
  const { name, states, moves } = definition;
  const movesOn = (event: Event) => moves.filter((move) => move.event === event);
  /** The states an event leaves: the guard of a conditional update (`WHERE status IN (...)`). */
  const fromStates = (event: Event): State[] => [...new Set(movesOn(event).map((move) => move.from))];

  /** The move `event` makes from `current`, or the 409 that names both. */
  function move(current: string, event: Event): Move<State, Event> {
    const found = moves.find((candidate) => candidate.from === current && candidate.event === event);
    if (found) return found;
    throw new AppError("invalid_state", `a ${current} ${name} cannot take the event ${event}`, {
      status: current,
      event,
      allowed_from: fromStates(event),
    });
  }

  /**
   * The one move of `event` whatever state it leaves, for a conditional update that reads no state first (a
   * provider's word, a sweep): an event the table sends to different states has none, a mistake in the table.
   */
  function target(event: Event): Move<State, Event> {
    const [first, ...rest] = movesOn(event);
    if (!first || rest.some((other) => other.to !== first.to || other.emits !== first.emits))
      throw new Error(`the ${name} event ${event} has no single target`);
    return first;
  }

  return {
    name,
    states,
    moves,
    terminal: new Set<string>(definition.terminal) as ReadonlySet<string>,
    fromStates,
    move,
    target,
    /** Whether the table has a move of `event` from `current`. */
    allows: (current: string, event: Event) => moves.some((m) => m.from === current && m.event === event),
    /** The state `event` moves `current` to, or the 409 that names both. */
    transition: (current: string, event: Event): State => move(current, event).to,
    isState: (value: string): value is State => (states as readonly string[]).includes(value),
  };
}

export type StateMachine<State extends string, Event extends string> = ReturnType<typeof stateMachine<State, Event>>;

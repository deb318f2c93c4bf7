import type { WebSocket } from "ws";

/** graphql-ws's own code for a socket that did not initialise in time, also used for one that asks for nothing. */
export const IDLE_CLOSE = 4408;

/**
 * Closes a graphql-ws socket that has no operation running (no subscription open, no query or mutation under way)
 * for `idleMs`, counted from its upgrade and again from the end of its last operation. An anonymous socket can hold
 * no subscription, so it goes too: a socket that asks for nothing would only hold a descriptor and a connection slot.
 */
export function idleSockets(idleMs: number) {
  const states = new WeakMap<WebSocket, { running: Set<string>; timer?: NodeJS.Timeout }>();

  const arm = (socket: WebSocket) => {
    const state = states.get(socket);
    if (!state) return;
    clearTimeout(state.timer);
    state.timer =
      state.running.size === 0
        ? setTimeout(() => socket.close(IDLE_CLOSE, `No subscription within ${idleMs} ms`), idleMs)
        : undefined;
  };

  return {
    opened(socket: WebSocket) {
      states.set(socket, { running: new Set() });
      arm(socket);
      socket.once("close", () => clearTimeout(states.get(socket)?.timer));
    },
    started(socket: WebSocket, id: string) {
      states.get(socket)?.running.add(id);
      arm(socket);
    },
    ended(socket: WebSocket, id: string) {
      states.get(socket)?.running.delete(id);
      arm(socket);
    },
  };
}

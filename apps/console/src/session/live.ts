import { useEffect, useRef, useSyncExternalStore } from "react";

/**
 * Where the console's WebSocket (graphql-ws) stands: live views show it, and read again what they show after a
 * reconnection, since events sent while the socket was down are not sent again.
 */
export type LiveStatus = "connecting" | "live" | "reconnecting";

let status: LiveStatus = "connecting";
/** Connections made after the socket dropped; a live view reads again at each. */
let reconnections = 0;
const listeners = new Set<() => void>();
const set = (next: LiveStatus) => {
  status = next;
  for (const listener of listeners) listener();
};

/** A close the console asked for (the last live view left, a new token): nothing to reconnect. */
const NORMAL_CLOSURE = 1000;

/** graphql-ws's connection events, as `createClient({ on })` takes them. */
export const liveConnectionEvents = {
  connected: () => {
    if (status === "reconnecting") reconnections += 1;
    set("live");
  },
  closed: (event: unknown) => {
    const code = (event as { code?: number } | undefined)?.code;
    set(code === NORMAL_CLOSURE ? "connecting" : "reconnecting");
  },
};

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(subscribe, () => status);
}

/** Calls `readAgain` each time the socket connects again after it dropped. */
export function useReadAgainOnReconnect(readAgain: () => void) {
  const seen = useSyncExternalStore(subscribe, () => reconnections);
  const atMount = useRef(seen);
  const latest = useRef(readAgain);
  latest.current = readAgain;
  useEffect(() => {
    if (seen > atMount.current) latest.current();
  }, [seen]);
}

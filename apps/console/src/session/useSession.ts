import { useEffect, useMemo, useSyncExternalStore } from "react";
import { refreshSession } from "./client";
import { identityOf, session } from "./session";

/** Refresh this long before the access token ends, so no request meets an expired one. */
const REFRESH_AHEAD_MS = 60_000;

/** The current session and who it is (null when logged out); re-renders when either changes. */
export function useSession() {
  const stored = useSyncExternalStore(session.subscribe, session.snapshot);
  const identity = useMemo(() => (stored ? identityOf(stored.access_token) : null), [stored]);
  return { stored, identity };
}

/** Takes new tokens before the access token expires, for as long as the session lasts. */
export function useTokenRefresh() {
  const { stored } = useSession();
  useEffect(() => {
    if (!stored) return;
    const timer = setTimeout(
      () => refreshSession().catch(() => undefined),
      Math.max(0, stored.expires_at - Date.now() - REFRESH_AHEAD_MS),
    );
    return () => clearTimeout(timer);
  }, [stored]);
}

import { decodeJwt } from "jose";
import type { Role } from "../graphql/graphql";

/** What a login, a refresh or an impersonation answers. */
export interface IssuedTokens {
  access_token: string;
  refresh_token?: string | null;
  expires_in: number;
}

interface StoredSession {
  access_token: string;
  refresh_token: string | null;
  /** Epoch milliseconds. */
  expires_at: number;
  /** The operator's own session while it acts as another user (impersonation), restored when it ends. */
  operator?: Omit<StoredSession, "operator">;
}

/** Who the access token says the caller is: the claims the console shapes its navigation by. */
export interface Identity {
  user_id: string;
  role: Role;
  tier: number;
  psp_id: number | null;
  merchant_id: number | null;
  area_id: string | null;
  store_id: number | null;
  impersonated_by: string | null;
}

export const tiers: Record<Role, number> = {
  SYSTEM_OP: 0,
  PSP_ADMIN: 1,
  MERCHANT_ADMIN: 2,
  AREA_MANAGER: 3,
  STORE_MANAGER: 4,
  STAFF_LEADER: 5,
  STAFF: 6,
};

const KEY = "pos-cloud-console-session";
/** Why the last session ended, for the login page (expired, logged out). */
const ENDED_KEY = "pos-cloud-console-ended";

// The tab's session survives a reload or a typed URL, and ends with the tab.
const storage = window.sessionStorage;
const listeners = new Set<() => void>();
let current: StoredSession | null = read();

function read(): StoredSession | null {
  const text = storage.getItem(KEY);
  return text ? (JSON.parse(text) as StoredSession) : null;
}

function write(next: StoredSession | null) {
  current = next;
  if (next) storage.setItem(KEY, JSON.stringify(next));
  else storage.removeItem(KEY);
  for (const listener of listeners) listener();
}

const stored = (tokens: IssuedTokens) => ({
  access_token: tokens.access_token,
  refresh_token: tokens.refresh_token ?? null,
  expires_at: Date.now() + tokens.expires_in * 1000,
});

export const session = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  snapshot: () => current,
  accessToken: () => current?.access_token ?? null,
  refreshToken: () => current?.refresh_token ?? null,
  expiresAt: () => current?.expires_at ?? null,
  start(tokens: IssuedTokens) {
    storage.removeItem(ENDED_KEY);
    write(stored(tokens));
  },
  renew(tokens: IssuedTokens) {
    if (current) write({ ...current, ...stored(tokens) });
  },
  impersonate(tokens: IssuedTokens) {
    if (current) write({ ...stored(tokens), operator: current.operator ?? current });
  },
  /** Back to the operator's own session; false when there was none left (then the session ends). */
  endImpersonation() {
    if (!current?.operator) return false;
    write(current.operator);
    return true;
  },
  end(reason: "logged_out" | "expired") {
    storage.setItem(ENDED_KEY, reason);
    write(null);
  },
  endedBecause: () => storage.getItem(ENDED_KEY) as "logged_out" | "expired" | null,
};

export function identityOf(accessToken: string): Identity {
  const claims = decodeJwt(accessToken) as Record<string, unknown>;
  const role = claims.role as Role;
  return {
    user_id: String(claims.sub),
    role,
    tier: tiers[role],
    psp_id: (claims.psp_id as number | null) ?? null,
    merchant_id: (claims.merchant_id as number | null) ?? null,
    area_id: (claims.area_id as string | null) ?? null,
    store_id: (claims.store_id as number | null) ?? null,
    impersonated_by: (claims.impersonated_by as string | undefined) ?? null,
  };
}

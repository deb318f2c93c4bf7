import { useMutation } from "@apollo/client/react";
import { useNavigate } from "react-router";
import { LogoutDocument } from "../graphql/graphql";
import { client } from "./client";
import { session } from "./session";

/**
 * "Log out" and "End impersonation". While the operator acts as another user, both end the impersonation alone: the
 * impersonation's token is revoked (logout with it and no refresh token) and the operator's own session comes back;
 * the user's own sessions are not the operator's to end.
 */
export function useLogOut() {
  const [logout, { loading }] = useMutation(LogoutDocument);
  const navigate = useNavigate();

  async function endImpersonation() {
    await logout({ variables: { refresh_token: null } }).catch(() => undefined);
    if (!session.endImpersonation()) session.end("logged_out");
    await client.clearStore();
    navigate("/users");
  }

  async function logOut() {
    if (session.snapshot()?.operator) return endImpersonation();
    await logout({ variables: { refresh_token: session.refreshToken() } }).catch(() => undefined);
    session.end("logged_out");
    await client.clearStore();
  }

  return { logOut, endImpersonation, loading };
}

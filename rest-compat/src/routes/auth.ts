import { runOperation } from "../graphql";
import {
  ImpersonateDocument,
  LoginDocument,
  LogoutDocument,
  PinLoginDocument,
  RefreshDocument,
  SendMfaDocument,
  VerifyMfaDocument,
} from "../operations/gateway.generated";
import type { RestRoute } from "../router";

type Fields = Record<string, unknown>;
const fieldsOf = (body: { fields: unknown }): Fields =>
  body.fields && typeof body.fields === "object" ? (body.fields as Fields) : {};
const withoutNulls = (value: Fields) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));

/** Human login, MFA, PIN login, refresh, logout and impersonation (portal `auth` module). */
export const authRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/api/v1/auth/user/login",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { login_id, email, password } = fieldsOf(body);
      const input = { login_id, email, password };
      const { loginUser: result } = await runOperation(execute, LoginDocument, { input }, caller);
      // Tokens appear only when no MFA step follows; mfa_channel stays (null) as the spec lists it.
      return { status: 200, body: { ...withoutNulls(result), mfa_channel: result.mfa_channel } };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/mfa/send",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { user_id } = fieldsOf(body);
      const data = await runOperation(execute, SendMfaDocument, { user_id }, caller);
      return { status: 200, body: withoutNulls(data.sendMfaCode) };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/mfa/verify",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { user_id, code } = fieldsOf(body);
      const data = await runOperation(execute, VerifyMfaDocument, { input: { user_id, code } }, caller);
      return { status: 200, body: data.verifyMfaCode };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/pin-login",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { login_id, pin } = fieldsOf(body);
      const data = await runOperation(execute, PinLoginDocument, { input: { login_id, pin } }, caller);
      return { status: 200, body: data.pinLogin };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/token/refresh",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { refresh_token } = fieldsOf(body);
      const data = await runOperation(execute, RefreshDocument, { refresh_token }, caller);
      return { status: 200, body: data.refreshToken };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/logout",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { refresh_token } = fieldsOf(body);
      await runOperation(execute, LogoutDocument, { refresh_token }, caller);
      return { status: 204, body: null };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/admin/impersonate",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { target_user_id } = fieldsOf(body);
      const data = await runOperation(execute, ImpersonateDocument, { target_user_id }, caller);
      return { status: 200, body: data.impersonateUser };
    },
  },
];

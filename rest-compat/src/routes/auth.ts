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
import type { RestRequest, RestRoute } from "../router";

type Fields = Record<string, unknown>;
const fieldsOf = (body: { fields: unknown }): Fields =>
  body.fields && typeof body.fields === "object" ? (body.fields as Fields) : {};
const withoutNulls = (value: Fields) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));

const login = ({ body }: RestRequest) => {
  const { login_id, email, password } = fieldsOf(body);
  return { input: { login_id, email, password } };
};
const sendMfa = ({ body }: RestRequest) => ({ user_id: fieldsOf(body).user_id });
const verifyMfa = ({ body }: RestRequest) => {
  const { user_id, code } = fieldsOf(body);
  return { input: { user_id, code } };
};
const pinLogin = ({ body }: RestRequest) => {
  const { login_id, pin } = fieldsOf(body);
  return { input: { login_id, pin } };
};
const refreshToken = ({ body }: RestRequest) => ({ refresh_token: fieldsOf(body).refresh_token });
const impersonate = ({ body }: RestRequest) => ({ target_user_id: fieldsOf(body).target_user_id });

/** Human login, MFA, PIN login, refresh, logout and impersonation (portal `auth` module). */
export const authRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/api/v1/auth/user/login",
    alsoUnprefixed: true,
    doc: {
      operation: LoginDocument,
      field: "loginUser",
      status: 200,
      variables: login,
      anonymous: true,
      omitsNulls: true,
    },
    async handle(request, execute) {
      const { loginUser: result } = await runOperation(execute, LoginDocument, login(request), request.caller);
      // Tokens appear only when no MFA step follows; mfa_channel stays (null) as the spec lists it.
      return { status: 200, body: { ...withoutNulls(result), mfa_channel: result.mfa_channel } };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/mfa/send",
    alsoUnprefixed: true,
    doc: {
      operation: SendMfaDocument,
      field: "sendMfaCode",
      status: 200,
      variables: sendMfa,
      anonymous: true,
      omitsNulls: true,
    },
    async handle(request, execute) {
      const data = await runOperation(execute, SendMfaDocument, sendMfa(request), request.caller);
      return { status: 200, body: withoutNulls(data.sendMfaCode) };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/mfa/verify",
    alsoUnprefixed: true,
    doc: { operation: VerifyMfaDocument, field: "verifyMfaCode", status: 200, variables: verifyMfa, anonymous: true },
    async handle(request, execute) {
      const data = await runOperation(execute, VerifyMfaDocument, verifyMfa(request), request.caller);
      return { status: 200, body: data.verifyMfaCode };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/pin-login",
    alsoUnprefixed: true,
    doc: { operation: PinLoginDocument, field: "pinLogin", status: 200, variables: pinLogin, anonymous: true },
    async handle(request, execute) {
      const data = await runOperation(execute, PinLoginDocument, pinLogin(request), request.caller);
      return { status: 200, body: data.pinLogin };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/token/refresh",
    alsoUnprefixed: true,
    doc: { operation: RefreshDocument, field: "refreshToken", status: 200, variables: refreshToken, anonymous: true },
    async handle(request, execute) {
      const data = await runOperation(execute, RefreshDocument, refreshToken(request), request.caller);
      return { status: 200, body: data.refreshToken };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/logout",
    alsoUnprefixed: true,
    doc: { operation: LogoutDocument, field: "logout", status: 204, variables: refreshToken, anonymous: true },
    async handle(request, execute) {
      await runOperation(execute, LogoutDocument, refreshToken(request), request.caller);
      return { status: 204, body: null };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/admin/impersonate",
    alsoUnprefixed: true,
    doc: { operation: ImpersonateDocument, field: "impersonateUser", status: 200, variables: impersonate },
    async handle(request, execute) {
      const data = await runOperation(execute, ImpersonateDocument, impersonate(request), request.caller);
      return { status: 200, body: data.impersonateUser };
    },
  },
];

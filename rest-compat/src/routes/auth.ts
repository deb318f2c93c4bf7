import { dataOf } from "../graphql";
import type { RestRoute } from "../router";

type Fields = Record<string, unknown>;
const fieldsOf = (body: { fields: unknown }): Fields =>
  body.fields && typeof body.fields === "object" ? (body.fields as Fields) : {};
const withoutNulls = (value: Fields) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));

const tokenFields = "access_token refresh_token expires_in token_type";

/** Human login, MFA, PIN login, refresh, logout and impersonation (portal `auth` module). */
export const authRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/api/v1/auth/user/login",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { login_id, email, password } = fieldsOf(body);
      const data = dataOf(
        await execute(
          `mutation Login($login_id: String, $email: String, $password: String!) {
            loginUser(login_id: $login_id, email: $email, password: $password) {
              user_id mfa_required mfa_channel ${tokenFields}
            }
          }`,
          { login_id, email, password },
          caller,
        ),
      );
      const result = data.loginUser as Fields;
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
      const data = dataOf(
        await execute(
          `mutation SendMfa($user_id: ID!) { sendMfaCode(user_id: $user_id) { user_id channel sent expires_in message } }`,
          { user_id },
          caller,
        ),
      );
      return { status: 200, body: withoutNulls(data.sendMfaCode as Fields) };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/mfa/verify",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { user_id, code } = fieldsOf(body);
      const data = dataOf(
        await execute(
          `mutation VerifyMfa($user_id: ID!, $code: String!) { verifyMfaCode(user_id: $user_id, code: $code) { ${tokenFields} } }`,
          { user_id, code },
          caller,
        ),
      );
      return { status: 200, body: data.verifyMfaCode };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/pin-login",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { login_id, pin } = fieldsOf(body);
      const data = dataOf(
        await execute(
          `mutation PinLogin($login_id: String!, $pin: String!) { pinLogin(login_id: $login_id, pin: $pin) { ${tokenFields} } }`,
          { login_id, pin },
          caller,
        ),
      );
      return { status: 200, body: data.pinLogin };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/token/refresh",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { refresh_token } = fieldsOf(body);
      const data = dataOf(
        await execute(
          `mutation Refresh($refresh_token: String!) { refreshToken(refresh_token: $refresh_token) { ${tokenFields} } }`,
          { refresh_token },
          caller,
        ),
      );
      return { status: 200, body: data.refreshToken };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/user/logout",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { refresh_token } = fieldsOf(body);
      dataOf(
        await execute(
          `mutation Logout($refresh_token: String) { logout(refresh_token: $refresh_token) }`,
          { refresh_token },
          caller,
        ),
      );
      return { status: 204, body: null };
    },
  },
  {
    method: "POST",
    path: "/api/v1/auth/admin/impersonate",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const { target_user_id } = fieldsOf(body);
      const data = dataOf(
        await execute(
          `mutation Impersonate($target_user_id: ID!) {
            impersonateUser(target_user_id: $target_user_id) { access_token expires_in token_type }
          }`,
          { target_user_id },
          caller,
        ),
      );
      return { status: 200, body: data.impersonateUser };
    },
  },
];

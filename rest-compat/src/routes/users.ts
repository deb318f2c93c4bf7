import { dataOf } from "../graphql";
import { operationRoute } from "../operation-route";
import { integerParam, pageParams } from "../params";
import type { RestRequest, RestRoute } from "../router";

const userFields = `id login_id role tier psp_id merchant_id area_id store_id name email phone mfa_enabled mfa_channel
  status locked_until pin_locked created_at updated_at`;
/** A TOTP secret is shown once, in the answer that created it; other answers leave the two fields out. */
const withSecret = `${userFields} totp_secret totp_uri`;

type Fields = Record<string, unknown>;
const fieldsOf = (body: { fields: unknown }): Fields =>
  body.fields && typeof body.fields === "object" ? (body.fields as Fields) : {};
const shown = (user: unknown) => {
  const { totp_secret, totp_uri, ...rest } = user as Fields;
  return totp_secret ? { ...rest, totp_secret, totp_uri } : rest;
};
const byId = ({ params }: RestRequest) => ({ id: params.id });

/** Users of tiers L0 to L6 (portal `users` module); lists are `{ data: [...] }`. */
export const userRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/api/v1/users",
    alsoUnprefixed: true,
    async handle({ query, caller }, execute) {
      const data = dataOf(
        await execute(
          `query Users($store_id: Int, $role: Role, $limit: Int, $offset: Int) {
            users(store_id: $store_id, role: $role, limit: $limit, offset: $offset) { nodes { ${userFields} } } }`,
          {
            store_id: integerParam(query.get("store_id"), "store_id"),
            role: query.get("role") ?? undefined,
            ...pageParams(query),
          },
          caller,
        ),
      );
      return { status: 200, body: { data: (data.users as { nodes: unknown[] }).nodes } };
    },
  },
  {
    method: "POST",
    path: "/api/v1/users",
    alsoUnprefixed: true,
    async handle({ body, caller }, execute) {
      const data = dataOf(
        await execute(
          `mutation CreateUser($input: UserInput!) { createUser(input: $input) { ${withSecret} } }`,
          { input: fieldsOf(body) },
          caller,
        ),
      );
      return { status: 201, body: shown(data.createUser) };
    },
  },
  operationRoute("GET", "/api/v1/users/:id", "user", `query User($id: ID!) { user(id: $id) { ${userFields} } }`, byId),
  {
    method: "PATCH",
    path: "/api/v1/users/:id",
    alsoUnprefixed: true,
    async handle({ params, body, caller }, execute) {
      const data = dataOf(
        await execute(
          `mutation UpdateUser($id: ID!, $input: UserInput!) { updateUser(id: $id, input: $input) { ${withSecret} } }`,
          { id: params.id, input: fieldsOf(body) },
          caller,
        ),
      );
      return { status: 200, body: shown(data.updateUser) };
    },
  },
  operationRoute(
    "DELETE",
    "/api/v1/users/:id",
    "deleteUser",
    `mutation DeleteUser($id: ID!) { deleteUser(id: $id) { ${userFields} } }`,
    byId,
  ),
  operationRoute(
    "POST",
    "/api/v1/users/:id/unlock",
    "unlockUser",
    `mutation Unlock($id: ID!) { unlockUser(id: $id) { ${userFields} } }`,
    byId,
  ),
  {
    method: "GET",
    path: "/api/v1/stores/:id/staff",
    alsoUnprefixed: true,
    async handle({ params, caller }, execute) {
      const data = dataOf(
        await execute(
          `query StoreStaff($id: Int!) { storeStaff(store_id: $id) { ${userFields} } }`,
          { id: Number(params.id) },
          caller,
        ),
      );
      return { status: 200, body: { data: data.storeStaff } };
    },
  },
];

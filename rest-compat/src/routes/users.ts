import { runOperation } from "../graphql";
import { operationRoute } from "../operation-route";
import {
  CreateUserDocument,
  DeleteUserDocument,
  LockDocument,
  ResetMfaDocument,
  StoreStaffDocument,
  UnlockDocument,
  UpdateUserDocument,
  UserDocument,
  UsersDocument,
} from "../operations/gateway.generated";
import { integerParam, pageParams } from "../params";
import type { RestRequest, RestRoute } from "../router";

type Fields = Record<string, unknown>;
const fieldsOf = (body: { fields: unknown }): Fields =>
  body.fields && typeof body.fields === "object" ? (body.fields as Fields) : {};
/** A TOTP secret is shown once, in the answer that created it; other answers leave the two fields out. */
const shown = (user: Fields) => {
  const { totp_secret, totp_uri, ...rest } = user;
  return totp_secret ? { ...rest, totp_secret, totp_uri } : rest;
};
const byId = ({ params }: RestRequest) => ({ id: params.id });
const creation = ({ body }: RestRequest) => ({ input: fieldsOf(body) });
const change = ({ params, body }: RestRequest) => ({ id: params.id, input: fieldsOf(body) });

/** Users of tiers L0 to L6 (portal `users` module). */
export const userRoutes: RestRoute[] = [
  operationRoute(
    "GET",
    "/api/v1/users",
    "users",
    UsersDocument,
    ({ query }) => ({
      store_id: integerParam(query.get("store_id"), "store_id"),
      role: query.get("role") ?? undefined,
      ...pageParams(query),
    }),
    { page: true },
  ),
  {
    method: "POST",
    path: "/api/v1/users",
    alsoUnprefixed: true,
    doc: { operation: CreateUserDocument, field: "createUser", status: 201, variables: creation, omitsNulls: true },
    async handle(request, execute) {
      const data = await runOperation(execute, CreateUserDocument, creation(request), request.caller);
      return { status: 201, body: shown(data.createUser) };
    },
  },
  operationRoute("GET", "/api/v1/users/:id", "user", UserDocument, byId),
  {
    method: "PATCH",
    path: "/api/v1/users/:id",
    alsoUnprefixed: true,
    doc: { operation: UpdateUserDocument, field: "updateUser", status: 200, variables: change, omitsNulls: true },
    async handle(request, execute) {
      const data = await runOperation(execute, UpdateUserDocument, change(request), request.caller);
      return { status: 200, body: shown(data.updateUser) };
    },
  },
  operationRoute("DELETE", "/api/v1/users/:id", "deleteUser", DeleteUserDocument, byId),
  operationRoute("POST", "/api/v1/users/:id/unlock", "unlockUser", UnlockDocument, byId),
  operationRoute("POST", "/api/v1/users/:id/lock", "lockUser", LockDocument, byId),
  operationRoute("POST", "/api/v1/users/:id/mfa/reset", "resetUserMfa", ResetMfaDocument, byId),
  operationRoute("GET", "/api/v1/stores/:id/staff", "storeStaff", StoreStaffDocument, ({ params }) => ({
    id: Number(params.id),
  })),
];

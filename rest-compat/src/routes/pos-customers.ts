import { AppError } from "@pos-cloud/common";
import { operationRoute as route } from "../operation-route";
import {
  CreateCustomerDocument,
  CustomerDocument,
  CustomerOrdersDocument,
  CustomersDocument,
  UpdateCustomerDocument,
} from "../operations/gateway.generated";
import { integerParam, pageParams } from "../params";
import type { RestRoute } from "../router";

/** A query-string boolean: `true` and `false` are booleans; anything else goes on for GraphQL to refuse (400). */
const booleanParam = (value: string | null) =>
  value === null ? undefined : value === "true" ? true : value === "false" ? false : value;

/** Fields a customer keeps for life: the PATCH body's schema has no such field, and the 400 says why. */
const immutableFields = new Set(["merchant_id", "customer_number"]);

function explainImmutable(error: unknown): unknown {
  if (!(error instanceof AppError) || error.details.constraint !== "unknown_field") return error;
  const field = String(error.details.field);
  return immutableFields.has(field)
    ? new AppError("invalid_request", `${field} cannot change`, { field, constraint: "immutable" })
    : error;
}

const update = route(
  "PATCH",
  "/api/v1/customers/:id",
  "updateCustomer",
  UpdateCustomerDocument,
  ({ params, body }) => ({ id: params.id, input: body.fields }),
);

/** The spec's customer endpoints (Store Manager and above), each one operation of the pos `customers` module. */
export const posCustomerRoutes: RestRoute[] = [
  route("POST", "/api/v1/customers", "createCustomer", CreateCustomerDocument, ({ body }) => ({ input: body.fields }), {
    status: 201,
  }),
  route(
    "GET",
    "/api/v1/customers",
    "customers",
    CustomersDocument,
    ({ query }) => ({
      merchant_id: integerParam(query.get("merchant_id"), "merchant_id"),
      ...Object.fromEntries(
        ["phone", "email", "customer_number", "name", "sort", "order"].map((name) => [
          name,
          query.get(name) ?? undefined,
        ]),
      ),
      is_active: booleanParam(query.get("is_active")),
      ...pageParams(query),
    }),
    { page: true },
  ),
  route("GET", "/api/v1/customers/:id", "customer", CustomerDocument, ({ params }) => ({ id: params.id })),
  {
    ...update,
    handle: (request, execute) =>
      update.handle(request, execute).catch((error: unknown) => {
        throw explainImmutable(error);
      }),
  },
  route(
    "GET",
    "/api/v1/customers/:id/orders",
    "customerOrders",
    CustomerOrdersDocument,
    ({ params, query }) => ({
      id: params.id,
      start_date: query.get("start_date") ?? undefined,
      end_date: query.get("end_date") ?? undefined,
      after: query.get("after") ?? undefined,
      ...pageParams(query),
    }),
    { page: true },
  ),
];

import { AppError } from "@pos-cloud/common";
import { runOperation } from "../graphql";
import { IssueDeviceTokenDocument } from "../operations/gateway.generated";
import type { RestRequest, RestRoute } from "../router";

const noStore = { "cache-control": "no-store", pragma: "no-cache" };
const text = (value: unknown) => (typeof value === "string" ? value : null);

const tokenRequest = ({ body }: RestRequest) => {
  const fields = (body.fields ?? {}) as Record<string, unknown>;
  return {
    input: {
      grant_type: text(fields.grant_type),
      client_assertion_type: text(fields.client_assertion_type),
      client_assertion: text(fields.client_assertion),
      client_id: text(fields.client_id),
    },
  };
};

/**
 * The device token endpoint speaks OAuth 2.0: form or JSON in, and errors as `{error, error_description}`
 * (RFC 6749 §5.2) rather than the platform's `{code, message, details}`. Nothing is cached.
 */
export const deviceTokenRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/api/v1/auth/device/token",
    alsoUnprefixed: true,
    doc: {
      operation: IssueDeviceTokenDocument,
      field: "issueDeviceToken",
      status: 200,
      variables: tokenRequest,
      anonymous: true,
      oauth: true,
    },
    async handle(request, execute) {
      try {
        const data = await runOperation(execute, IssueDeviceTokenDocument, tokenRequest(request), request.caller);
        return { status: 200, body: data.issueDeviceToken, headers: noStore };
      } catch (error) {
        if (!(error instanceof AppError) || typeof error.details.error !== "string") throw error;
        return {
          status: error.status,
          body: { error: error.details.error, error_description: error.message },
          headers: error.details.error === "invalid_client" ? { ...noStore, "www-authenticate": "Bearer" } : noStore,
        };
      }
    },
  },
];

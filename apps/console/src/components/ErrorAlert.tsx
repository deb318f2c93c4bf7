import { CombinedGraphQLErrors, ServerError } from "@apollo/client";
import { Alert } from "@mantine/core";

const titles: Record<string, string> = {
  FORBIDDEN: "Not allowed",
  NOT_FOUND: "Not found",
  UNAUTHENTICATED: "Your session has ended",
  LOCKED: "Account locked",
  CONFLICT: "Conflict",
  INVALID_STATE: "Not possible in this state",
  INVALID_REQUEST: "Check the form",
  RATE_LIMIT_EXCEEDED: "Too many attempts",
};

/** What a refusal from the server says, as the API's `code` and `message` (and `details.field` when named). */
export function describeError(error: unknown): { title: string; message: string; code?: string } {
  if (CombinedGraphQLErrors.is(error) && error.errors[0]) {
    const first = error.errors[0];
    const code = String(first.extensions?.code ?? "");
    const details = (first.extensions?.details ?? {}) as { field?: string; locked_until?: string };
    const until = details.locked_until ? ` until ${new Date(details.locked_until).toLocaleTimeString()}` : "";
    const field = details.field ? ` (${details.field})` : "";
    return { title: titles[code] ?? "The server refused", message: `${first.message}${field}${until}`, code };
  }
  if (ServerError.is(error)) return { title: "The server refused", message: `HTTP ${error.statusCode}` };
  return { title: "Something went wrong", message: error instanceof Error ? error.message : String(error) };
}

export function ErrorAlert({ error }: { error: unknown }) {
  const { title, message, code } = describeError(error);
  return (
    <Alert color="red" title={title} role="alert" data-code={code}>
      {message}
    </Alert>
  );
}

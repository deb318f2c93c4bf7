/** The platform's error body (`{ code, message, details }`), as every error response carries it. */
export interface PlatformErrorBody {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A refusal by the platform: its HTTP status and the spec's error code, message and details. */
export class TerminalApiError extends Error {
  override readonly name = "TerminalApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** Reads an error response; a body that is not the platform's format still gives its status. */
  static async from(response: Response): Promise<TerminalApiError> {
    const body = (await response
      .clone()
      .json()
      .catch(() => undefined)) as Partial<PlatformErrorBody> | undefined;
    return TerminalApiError.of(response.status, body);
  }

  static of(status: number, body: Partial<PlatformErrorBody> | undefined): TerminalApiError {
    return new TerminalApiError(
      status,
      typeof body?.code === "string" ? body.code : "internal_error",
      typeof body?.message === "string" ? body.message : `HTTP ${status}`,
      body?.details && typeof body.details === "object" ? body.details : {},
    );
  }
}

/** The data of an openapi-fetch result, or its error as a `TerminalApiError`. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    throw TerminalApiError.of(result.response.status, result.error as Partial<PlatformErrorBody> | undefined);
  }
  return result.data;
}

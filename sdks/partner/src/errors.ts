/** A refusal from the platform, in the spec's error format: its HTTP status and stable `code`. */
export class PartnerApiError extends Error {
  override readonly name = "PartnerApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** The error a non-2xx response stands for; a body that is not the spec's format keeps its status. */
  static async of(response: Response): Promise<PartnerApiError> {
    const text = await response.clone().text();
    let body: { code?: unknown; message?: unknown; details?: unknown } = {};
    try {
      body = JSON.parse(text);
    } catch {}
    return new PartnerApiError(
      response.status,
      typeof body.code === "string" ? body.code : `http_${response.status}`,
      typeof body.message === "string" ? body.message : text || response.statusText,
      typeof body.details === "object" && body.details !== null ? (body.details as Record<string, unknown>) : {},
    );
  }
}

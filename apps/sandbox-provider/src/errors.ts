/** The sandbox's own error body, `{error: {code, message}}`: a provider's API does not speak the platform's shape. */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "SandboxError";
  }
}

export const sandboxErrors = {
  invalidRequest: (message: string) => new SandboxError(400, "invalid_request", message),
  unauthorized: (message: string) => new SandboxError(401, "unauthorized", message),
  notFound: () => new SandboxError(404, "not_found", "no such transaction"),
  invalidState: (message: string) => new SandboxError(409, "invalid_state", message),
  refundExceedsAmount: (refundable: number) =>
    new SandboxError(422, "refund_exceeds_amount", `at most ${refundable} can still be refunded`),
};

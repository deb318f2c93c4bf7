import { runOperation } from "../graphql";
import { PosReceiptDocument } from "../operations/gateway.generated";
import { integerParam } from "../params";
import type { RestRequest, RestResponse, RestRoute } from "../router";

/** The quality a client's Accept header gives a media type (`type/*` and `*\/*` count), 0 when it does not accept it. */
function quality(accept: string, type: string): number {
  let best = 0;
  let bestSpecificity = -1;
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.trim().toLowerCase().split(";");
    const [main, sub] = range.trim().split("/");
    const specificity = main === "*" ? 0 : sub === "*" ? 1 : 2;
    const matches =
      specificity === 0 || (specificity === 1 && type.startsWith(`${main}/`)) || (specificity === 2 && range === type);
    if (!matches || specificity < bestSpecificity) continue;
    const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find(Boolean);
    best = q === undefined ? 1 : Number(q);
    bestSpecificity = specificity;
  }
  return best;
}

/** Whether the client prefers the printed text (`Accept: text/plain`) to JSON; JSON on a tie or without Accept. */
export function wantsText(request: Pick<RestRequest, "headers">): boolean {
  const accept = request.headers.accept;
  if (!accept) return false;
  return quality(accept, "text/plain") > quality(accept, "application/json");
}

const receipt = (request: RestRequest) => ({
  payment_id: request.params.id,
  type: request.query.get("type") ?? undefined,
  text: wantsText(request),
  width: integerParam(request.query.get("width"), "width"),
});

export const posReceiptRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/api/v1/payments/:id/receipt",
    alsoUnprefixed: true,
    doc: { operation: PosReceiptDocument, field: "posReceipt", status: 200, variables: receipt, text: true },
    async handle(request, execute): Promise<RestResponse> {
      const variables = receipt(request);
      const { posReceipt } = await runOperation(execute, PosReceiptDocument, variables, request.caller);
      return variables.text
        ? { status: 200, body: null, text: posReceipt.text ?? "" }
        : { status: 200, body: posReceipt };
    },
  },
];

import { randomUUID } from "node:crypto";
import createClient, { type Middleware } from "openapi-fetch";
import { PartnerApiError } from "./errors.ts";
import { idempotencyKeyOperations, type paths } from "./openapi.generated.ts";
import { type RetryOptions, signingFetch } from "./retry.ts";

export interface PartnerClientOptions extends RetryOptions {
  /** The platform's address, e.g. `http://localhost:3000` (demo.json's `api_url`). */
  baseUrl: string;
  clientId: string;
  secret: string;
  /** The spec's HMAC scheme: 1 (hex, preferred; the default) or 2 (Base64). */
  scheme?: 1 | 2;
  fetch?: (request: Request) => Promise<Response>;
}

const reads = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Every write carries an Idempotency-Key (the caller's, or a new one), kept across retries. A write may be resent
 * after a lost answer only on a route that honours the key; the others are sent once.
 */
function idempotency(resendable: WeakSet<Request>): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      if (reads.has(request.method)) {
        resendable.add(request);
        return request;
      }
      if (!request.headers.has("idempotency-key")) request.headers.set("idempotency-key", randomUUID());
      if (idempotencyKeyOperations.has(`${request.method} ${schemaPath}`)) resendable.add(request);
      return request;
    },
  };
}

/** A refusal becomes a thrown `PartnerApiError`, so a returned `data` is always a success. */
const refusals: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await PartnerApiError.of(response);
    return response;
  },
};

/** The next page's address from `Link: <…>; rel="next"`, if any. */
function nextLink(response: Response): string | undefined {
  return /<([^>]+)>\s*;\s*rel="?next"?/.exec(response.headers.get("link") ?? "")?.[1];
}

/**
 * A typed client of the platform's partner API (`/v1`), from its own OpenAPI document: each call signed with the
 * partner's key, writes idempotent, safe retries. Refusals are thrown as `PartnerApiError`.
 */
export function createPartnerClient(options: PartnerClientOptions) {
  const resendable = new WeakSet<Request>();
  const send = signingFetch(options, (request) => resendable.has(request));
  // openapi-fetch hands its custom fetch the Request the middleware returned: the set marks it through the wrapper.
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: send });
  client.use(idempotency(resendable), refusals);

  /**
   * Every item of a list, page after page: the first page from `list`, the next ones from its `Link: rel="next"`,
   * until a page has none.
   */
  async function* paginate<Item>(
    list: () => Promise<{ data?: Item[]; response: Response }>,
  ): AsyncGenerator<Item, void, undefined> {
    const first = await list();
    yield* first.data ?? [];
    let next = nextLink(first.response);
    while (next) {
      const request = new Request(new URL(next, options.baseUrl));
      resendable.add(request);
      const response = await send(request);
      if (!response.ok) throw await PartnerApiError.of(response);
      yield* (await response.json()) as Item[];
      next = nextLink(response);
    }
  }

  return Object.assign(client, { paginate });
}

export type PartnerClient = ReturnType<typeof createPartnerClient>;

import { AppError, asGraphQLError } from "@pos-cloud/common";
import type { GraphQLError } from "graphql";
import type { GraphQLLimits } from "./graphql-limits";

type Limits = Pick<GraphQLLimits, "maxSubscriptionsPerConnection" | "maxSubscriptionsPerCaller">;

const refusal = (message: string, limit: "per_connection" | "per_caller", max: number) =>
  asGraphQLError(new AppError("subscription_limit", message, { constraint: "subscription_limit", limit, max }));

/**
 * How many graphql-ws subscriptions each connection and each authenticated subject hold on this process. A slot is
 * taken when a subscription is asked for, before its first read, so many requests at once cannot all pass the count;
 * it is given back when the subscription is refused or ends (completed by either side, or its socket closed).
 */
export function subscriptionSlots(limits: Limits) {
  const bySubject = new Map<string, number>();

  /** One connection's slots; `subject` is who authenticated it (undefined: counted per connection only). */
  return (subject: string | undefined) => {
    // By graphql-ws operation id: an id a client reuses right after completing it holds two slots for a moment.
    const held = new Map<string, number>();
    let open = 0;
    return {
      /** Takes a slot for operation `id`, or answers the error that refuses it. */
      take(id: string): GraphQLError | undefined {
        const max = limits.maxSubscriptionsPerConnection;
        if (open >= max)
          return refusal(`at most ${max} subscriptions may be open on one connection`, "per_connection", max);
        const mine = subject === undefined ? 0 : (bySubject.get(subject) ?? 0);
        if (mine >= limits.maxSubscriptionsPerCaller) {
          const most = limits.maxSubscriptionsPerCaller;
          return refusal(`at most ${most} subscriptions may be open for one caller`, "per_caller", most);
        }
        held.set(id, (held.get(id) ?? 0) + 1);
        open++;
        if (subject !== undefined) bySubject.set(subject, mine + 1);
        return undefined;
      },
      /** Gives back the slot of operation `id`, if it holds one (a query's end holds none). */
      release(id: string) {
        const count = held.get(id);
        if (count === undefined) return;
        if (count === 1) held.delete(id);
        else held.set(id, count - 1);
        open--;
        if (subject === undefined) return;
        const left = (bySubject.get(subject) ?? 1) - 1;
        if (left === 0) bySubject.delete(subject);
        else bySubject.set(subject, left);
      },
    };
  };
}

export type ConnectionSlots = ReturnType<ReturnType<typeof subscriptionSlots>>;

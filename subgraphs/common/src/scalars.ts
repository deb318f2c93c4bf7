import { DateTimeResolver, JSONResolver } from "graphql-scalars";

/** The scalars every subgraph declares in its `schema.graphql`. */
export const scalarResolvers = { DateTime: DateTimeResolver, JSON: JSONResolver };

import type DataLoader from "dataloader";
import { type FieldNode, type GraphQLResolveInfo, Kind, type SelectionSetNode } from "graphql";

// graphql-js hands every item of a list the same `fieldNodes`: a hierarchy's 400 stores collect their fields once.
const collected = new WeakMap<readonly FieldNode[], readonly string[]>();

/**
 * The fields asked of a resolver's result, fragments included, sorted: what a nested list reads columns for.
 * `@skip` and `@include` are not evaluated, so a field they leave out is still read, and none asked is missed.
 */
export function askedFields(info: GraphQLResolveInfo): readonly string[] {
  let fields = collected.get(info.fieldNodes);
  if (fields) return fields;
  const names = new Set<string>();
  const collect = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else collect(info.fragments[selection.name.value]?.selectionSet);
    }
  };
  for (const node of info.fieldNodes) collect(node.selectionSet);
  fields = [...names].sort();
  collected.set(info.fieldNodes, fields);
  return fields;
}

/**
 * One request's batch loader per set of asked fields, made on first use: the parents that ask the same fields are
 * read in one statement.
 */
export function loaderPerSelection<K, V>(make: (fields: readonly string[]) => DataLoader<K, V>) {
  const loaders = new Map<string, DataLoader<K, V>>();
  return (fields: readonly string[]) => {
    const key = fields.join(",");
    let loader = loaders.get(key);
    if (!loader) {
      loader = make(fields);
      loaders.set(key, loader);
    }
    return loader;
  };
}

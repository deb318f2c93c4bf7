/**
 * Remembers each answer of `lookup` for `ttlMs`, so a burst of requests asks once; a failed lookup is forgotten at
 * once, so the next request asks again. The cache is bounded by emptying it when it grows past 10,000 entries.
 */
export function cachedLookup<Arg, Value>(
  lookup: (arg: Arg) => Promise<Value>,
  options: { ttlMs: number; keyOf: (arg: Arg) => string; now?: () => number },
) {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { value: Promise<Value>; until: number }>();
  const lookUp = (arg: Arg): Promise<Value> => {
    const key = options.keyOf(arg);
    const cached = cache.get(key);
    if (cached && cached.until > now()) return cached.value;
    const value = lookup(arg);
    if (cache.size > 10_000) cache.clear();
    cache.set(key, { value, until: now() + options.ttlMs });
    value.catch(() => cache.delete(key));
    return value;
  };
  /** Forgets every answer (what they were drawn from changed): the next request of each asks again. */
  return Object.assign(lookUp, { clear: () => cache.clear() });
}

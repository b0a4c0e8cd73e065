/**
 * A store with some methods replaced, every other member the store's own (methods bound to it, so private
 * fields keep working). For tests that fail, delay or observe one store call; `target` is the real store.
 */
export function withStoreOverrides<S extends object>(
  store: S,
  overrides: { [K in keyof S]?: S[K] extends (...args: infer A) => infer R ? (...args: A) => R : never },
): S {
  return new Proxy(store, {
    get(target, property) {
      const override = (overrides as Record<PropertyKey, unknown>)[property];
      if (override !== undefined) return override;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Loads a library the first time it is needed, so a gateway that does not use a feature (metrics,
 * LDAP, YAML files) does not carry that library in its idle memory (see docs/benchmark.md).
 */
export function lazyModule<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}

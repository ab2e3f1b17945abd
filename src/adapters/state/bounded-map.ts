/**
 * A Map that never holds more than `capacity` entries: inserting into a full map drops the
 * oldest insertion. Entries carry an expiry and read as absent once it has passed.
 */
export class BoundedExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** When `key` expires, or undefined when it is absent or expired. */
  expiryOf(key: string, now: number): number | undefined {
    const entry = this.entries.get(key);
    return entry === undefined || entry.expiresAt <= now ? undefined : entry.expiresAt;
  }

  set(key: string, value: V, expiresAt: number): void {
    // Re-inserting moves the key to the young end.
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.evict();
    this.entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Removes expired entries; call now and then to return memory early. */
  sweep(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }

  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  private evict(): void {
    const oldest = this.entries.keys().next();
    if (!oldest.done) this.entries.delete(oldest.value);
  }
}

/**
 * A memo of a pure function of its key: at most `capacity` entries, emptied when full, and a key
 * longer than `maxKeyLength` characters is never kept (its caller computes the value each time). A
 * flood of distinct keys thus costs what the function costs and never grows the memo. Nothing in it
 * is ever invalidated, so use it only where the key determines the value completely.
 *
 * `get` and `remember` are apart (no callback) so that a hit allocates nothing on a hot path.
 */
export class BoundedMemo<K extends string | null, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    private readonly capacity: number,
    private readonly maxKeyLength = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Keeps `value` for `key` when the key is short enough, and returns it. */
  remember(key: K, value: V): V {
    if (key === null || key.length <= this.maxKeyLength) {
      if (this.entries.size >= this.capacity && !this.entries.has(key)) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }
}

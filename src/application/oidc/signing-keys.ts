/**
 * The gateway's signing keys (ID tokens, signed identity assertions), kept in the durable store so
 * that every replica and every restart signs with, and publishes, the same keys.
 */
export interface SigningKeys {
  /**
   * The stored key set (a serialized private JWK set), creating it with `create` when none is
   * stored yet. Atomic across replicas: when two create at once, both resolve the one that was
   * stored first, and the other candidate is discarded.
   */
  getOrCreate(create: () => string): Promise<string>;
  /** Replaces the stored key set (rotation: the new set lists the new key first and keeps the old one for verification). */
  replace(keySet: string): Promise<void>;
}

/** Source of unguessable identifiers. */
export interface IdGenerator {
  /** A fresh random id with at least 128 bits of entropy, URL-safe. */
  next(): string;
}

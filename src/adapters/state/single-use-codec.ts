/** How a single-use value is kept in its text column, and read back: `decode` answers null for text that is not one. */
export interface SingleUseCodec<V> {
  encode(value: V): string;
  decode(text: string): V | null;
}

/** A text value (a username) kept as it is. */
export const TEXT_CODEC: SingleUseCodec<string> = { encode: (value) => value, decode: (text) => text };

import type { BasicCredentials } from '../../domain/credentials';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** The longest base64 payload decoded (a few KB of credentials is already more than any client sends). */
const MAX_PAYLOAD = 4096;

/**
 * True when the header claims the Basic scheme at all (even if its payload is junk): `basic `
 * in any case of ASCII letters. Compared code by code (`c | 0x20` folds exactly `B`/`b` and so
 * on, nothing else): it runs on every forward-auth request, twice for Basic ones, and a slice
 * lower-cased each time cost a string or two per request.
 */
export const isBasicAuthorization = (header: string | undefined): header is string =>
  header !== undefined &&
  header.length > 6 &&
  (header.charCodeAt(0) | 0x20) === 0x62 &&
  (header.charCodeAt(1) | 0x20) === 0x61 &&
  (header.charCodeAt(2) | 0x20) === 0x73 &&
  (header.charCodeAt(3) | 0x20) === 0x69 &&
  (header.charCodeAt(4) | 0x20) === 0x63 &&
  header.charCodeAt(5) === 0x20;

/** The base64 payload of a Basic header when it is well-formed base64 of a sane length; null otherwise. */
function basicPayload(header: string | undefined): string | null {
  if (!isBasicAuthorization(header)) return null;
  const payload = header.slice(6).trim();
  return payload.length > MAX_PAYLOAD || !BASE64.test(payload) ? null : payload;
}

/** Splits decoded credentials at the first colon; null without one or with an empty username. */
function split(decoded: string): readonly [string, string] | null {
  const colon = decoded.indexOf(':');
  return colon <= 0 ? null : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/** Decodes a Basic `Authorization` header; null for another scheme, bad base64, no colon, or an empty username. */
export function parseBasicAuthorization(header: string | undefined): BasicCredentials | null {
  const payload = basicPayload(header);
  if (payload === null) return null;
  const pair = split(Buffer.from(payload, 'base64').toString('utf8'));
  return pair === null ? null : { kind: 'basic', username: pair[0], password: pair[1] };
}

/** The value of each base64 character by its code, -1 for any other (`=` included: it ends the data). */
const SEXTETS = (() => {
  const table = new Int8Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i += 1) table[alphabet.charCodeAt(i)] = i;
  return table;
})();

/**
 * Where the first `:` byte lies in what a payload `BASE64` accepts decodes to (as `Buffer` decodes
 * it: four characters make three bytes, a trailing two or three make one or two, a trailing one
 * none), or -1: read without decoding into a buffer or a string. A byte, not a character, but the
 * same answer for the question asked: UTF-8 never uses `:` (0x3A) inside a multi-byte sequence and
 * every byte before it decodes to at least one character, so the decoded text has a colon after
 * a non-empty username exactly when this is above 0 (the unit test checks it against the decoder).
 */
function firstColonByte(payload: string): number {
  let bits = 0;
  let held = 0;
  let index = 0;
  for (let i = 0; i < payload.length; i += 1) {
    const sextet = SEXTETS[payload.charCodeAt(i)];
    if (sextet < 0) break;
    bits = ((bits << 6) | sextet) & 0x3fff;
    held += 6;
    if (held >= 8) {
      held -= 8;
      if (((bits >> held) & 0xff) === 0x3a) return index;
      index += 1;
    }
  }
  return -1;
}

/**
 * Basic credentials as the client encoded them, decoded only when they are read. The forward-auth
 * path answers a header the Basic cache knows from its encoded text alone (`encoded`, see
 * KeyedHashVerifiedCredentials), so a cached request never decodes the password into a buffer and
 * two strings; the password check of a header the cache does not know reads them as before.
 */
class EncodedBasicCredentials implements BasicCredentials {
  readonly kind = 'basic' as const;
  // A private field, not a property: the decoded pair is no part of the object's shape.
  #pair: readonly [string, string] | null = null;

  constructor(readonly encoded: string) {}

  get username(): string {
    return this.decoded()[0];
  }

  get password(): string {
    return this.decoded()[1];
  }

  private decoded(): readonly [string, string] {
    // firstColonByte vouched for the colon and the username, so split finds them.
    this.#pair ??= split(Buffer.from(this.encoded, 'base64').toString('utf8')) as readonly [string, string];
    return this.#pair;
  }
}

/**
 * The Basic credentials a header presents, exactly when `parseBasicAuthorization` would find some
 * (another scheme, bad base64, no colon or an empty username: null), carrying the encoded text
 * and decoded when first read.
 */
export function presentedBasicCredentials(header: string | undefined): BasicCredentials | null {
  const payload = basicPayload(header);
  return payload === null || firstColonByte(payload) <= 0 ? null : new EncodedBasicCredentials(payload);
}

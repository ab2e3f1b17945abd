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

/** What payloadColon answers for a text that `BASE64` refuses. */
const NOT_BASE64 = -2;

/**
 * Where the first `:` byte lies in what `text` from `start` decodes to (as `Buffer` decodes it:
 * four characters make three bytes, a trailing two or three make one or two, a trailing one
 * none), -1 without one, or NOT_BASE64 when the text is not what `BASE64` accepts: one pass,
 * without decoding into a buffer or a string, and without cutting the text out of the header.
 * A byte, not a character, but the same answer for the question asked: UTF-8 never uses `:`
 * (0x3A) inside a multi-byte sequence and every byte before it decodes to at least one
 * character, so the decoded text has a colon after a non-empty username exactly when this is
 * above 0 (the unit test checks it against the decoder).
 */
function payloadColon(text: string, start: number): number {
  let bits = 0;
  let held = 0;
  let index = 0;
  let colon = -1;
  let padding = 0;
  for (let i = start; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    const sextet = code < 128 && padding === 0 ? SEXTETS[code] : -1;
    if (sextet >= 0) {
      bits = ((bits << 6) | sextet) & 0x3fff;
      held += 6;
      if (held >= 8) {
        held -= 8;
        if (colon === -1 && ((bits >> held) & 0xff) === 0x3a) colon = index;
        index += 1;
      }
    } else if (code === 0x3d && i > start && padding < 2) {
      padding += 1;
    } else {
      return NOT_BASE64;
    }
  }
  return text.length > start ? colon : NOT_BASE64;
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
    // payloadColon vouched for the colon and the username, so split finds them.
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
  if (!isBasicAuthorization(header)) return null;
  // Node hands over a header value without the spaces around it, so the payload nearly always
  // starts right after `Basic ` and is read where it stands (this runs for every Basic request);
  // a header with more space in it is cut and trimmed first, as parseBasicAuthorization does.
  if (header.length - 6 <= MAX_PAYLOAD) {
    const colon = payloadColon(header, 6);
    if (colon !== NOT_BASE64) return colon > 0 ? new EncodedBasicCredentials(header.slice(6)) : null;
  }
  const payload = basicPayload(header);
  return payload === null || payloadColon(payload, 0) <= 0 ? null : new EncodedBasicCredentials(payload);
}

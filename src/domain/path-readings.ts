/**
 * The ways an upstream may read the path of a request target, so that a path rule never decides on
 * a reading the upstream does not serve (see docs/adr/0009-ambiguous-paths.md).
 *
 * nginx and caddy forward the path as the client sent it, and upstreams differ: Koa and Flask route
 * on the raw or the percent-decoded path, Tomcat drops `;` parameters, some merge `//`, a few treat
 * `\` as `/`, and dot-segments are resolved by some and not by others. So:
 * - a path whose reading could climb out of a directory, or split a segment differently, is
 *   **ambiguous** and must be refused: a dot-segment (`.`, `..`, also encoded as `%2e`, also with a
 *   `;` parameter as in `..;`), an encoded `/` or `\` (`%2f`, `%5c`), a raw `\`, a double-encoded
 *   dot or separator (`%252e`), or a `#` inside the path;
 * - any other path has a few **readings**: raw or percent-decoded once, with or without `;`
 *   parameters, with or without duplicate slashes merged. A rule must hold for every one of them;
 * - a path with broken percent-encoding, control characters or NUL after decoding, or without a
 *   leading slash is **unreadable**: never public, always blocked.
 * The fragment and query are cut off on the raw text first (`?` ends the path).
 */
export type PathReadings =
  /** Every reading, deduplicated; the raw path first. */
  | { readonly kind: 'readings'; readonly paths: readonly string[] }
  /** `why` says what made it ambiguous, for the audit trail and `explain`. */
  | { readonly kind: 'ambiguous'; readonly why: string }
  | { readonly kind: 'unreadable' };

const UNREADABLE: PathReadings = Object.freeze({ kind: 'unreadable' });

/** The end of the path: the first `?`, or the end of the target. */
function pathEnd(uri: string): number {
  const q = uri.indexOf('?');
  return q === -1 ? uri.length : q;
}

/**
 * The one reading of a path that no upstream can read differently, without building anything (the
 * common case on the hot path); null when `readPath` must look closer.
 */
export function plainPath(uri: string): string | null {
  const end = pathEnd(uri);
  if (end === 0 || uri.charCodeAt(0) !== 47) return null;
  for (let i = 0; i < end; i += 1) {
    const c = uri.charCodeAt(i);
    // % ; \ # control characters and DEL all need a closer look.
    if (c === 37 || c === 59 || c === 92 || c === 35 || c < 32 || c === 127) return null;
    if (c === 47 && i + 1 < end) {
      const next = uri.charCodeAt(i + 1);
      if (next === 47 || next === 46) return null;
    }
  }
  return end === uri.length ? uri : uri.slice(0, end);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const ENCODED_SEPARATOR = /%(?:2f|5c)/i;
const DOUBLE_ENCODED = /%25(?:2e|2f|5c)/i;
const ENCODED_DOT = /%2e/gi;

/** True when a raw segment is `.` or `..` in some reading: dots decoded, `;` parameters dropped. */
function isDotSegment(raw: string): boolean {
  let seg = raw.indexOf('%') === -1 ? raw : raw.replace(ENCODED_DOT, '.');
  const semi = seg.search(/;|%3b/i);
  if (semi !== -1) seg = seg.slice(0, semi);
  return seg === '.' || seg === '..';
}

function withoutParameters(path: string): string {
  return path.replace(/;[^/]*/g, '');
}

function mergedSlashes(path: string): string {
  return path.replace(/\/{2,}/g, '/');
}

/** Every way an upstream may read the path of `uri`, or why none may be chosen. */
export function readPath(uri: string): PathReadings {
  const plain = plainPath(uri);
  if (plain !== null) return { kind: 'readings', paths: [plain] };
  const end = pathEnd(uri);
  if (end === 0 || uri.charCodeAt(0) !== 47) return UNREADABLE;
  const raw = uri.slice(0, end);
  if (raw.indexOf('#') !== -1) return { kind: 'ambiguous', why: 'a fragment in the path' };
  if (raw.indexOf('\\') !== -1) return { kind: 'ambiguous', why: 'a backslash' };
  if (ENCODED_SEPARATOR.test(raw)) return { kind: 'ambiguous', why: 'an encoded slash or backslash' };
  if (DOUBLE_ENCODED.test(raw)) return { kind: 'ambiguous', why: 'a double-encoded dot, slash or backslash' };
  const segments = raw.split('/');
  for (let i = 1; i < segments.length; i += 1) {
    if (isDotSegment(segments[i])) return { kind: 'ambiguous', why: 'a dot-segment' };
  }
  if (CONTROL.test(raw)) return UNREADABLE;
  let decoded = raw;
  if (raw.indexOf('%') !== -1) {
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return UNREADABLE;
    }
    if (CONTROL.test(decoded)) return UNREADABLE;
  }
  const paths: string[] = [];
  const add = (p: string): void => {
    if (!paths.includes(p)) paths.push(p);
  };
  for (const base of decoded === raw ? [raw] : [raw, decoded]) {
    const stripped = base.indexOf(';') === -1 ? base : withoutParameters(base);
    for (const p of stripped === base ? [base] : [base, stripped]) {
      add(p);
      add(mergedSlashes(p));
    }
  }
  return { kind: 'readings', paths };
}

/** The raw query (without `?`, before any fragment), or '' when there is none. */
export function rawQuery(uri: string): string {
  const q = uri.indexOf('?');
  if (q === -1) return '';
  const hash = uri.indexOf('#', q);
  return hash === -1 ? uri.slice(q + 1) : uri.slice(q + 1, hash);
}

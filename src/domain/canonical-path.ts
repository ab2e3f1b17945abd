/**
 * The one canonical form every path rule is matched against, so that the gateway and the upstream
 * cannot disagree about which resource a request names:
 * - the fragment (`#…`) and the query (`?…`) are cut off first, on the raw text;
 * - the path is percent-decoded exactly once (`%2f` is a `/`, `%252f` stays the text `%2f`);
 * - backslashes count as slashes (some upstreams treat them so);
 * - `;` parameters are dropped from every segment (`/admin;x/y` is `/admin/y`, `/..;/` is `/../`);
 * - empty segments collapse (`//` is `/`), `.` disappears and `..` removes the segment before it,
 *   never climbing above the root.
 * Anything that cannot be read this way (broken percent-encoding, control characters or NUL after
 * decoding, no leading slash) has no canonical form: null, and callers must treat that as the
 * strictest case (never public, always blocked).
 */
export function canonicalPath(uri: string): string | null {
  let end = uri.length;
  const q = uri.indexOf('?');
  if (q !== -1) end = q;
  const hash = uri.indexOf('#');
  if (hash !== -1 && hash < end) end = hash;
  if (end === 0 || uri.charCodeAt(0) !== 47) return null;
  if (isCanonical(uri, end)) return end === uri.length ? uri : uri.slice(0, end);
  return rebuild(uri.slice(0, end));
}

/** The raw query (without `?`, before any fragment), or '' when there is none. */
export function rawQuery(uri: string): string {
  const q = uri.indexOf('?');
  if (q === -1) return '';
  const hash = uri.indexOf('#', q);
  return hash === -1 ? uri.slice(q + 1) : uri.slice(q + 1, hash);
}

/** Fast check that needs no allocation: the common path is already canonical. */
function isCanonical(s: string, end: number): boolean {
  for (let i = 0; i < end; i += 1) {
    const c = s.charCodeAt(i);
    // % ; \ control characters and DEL all need the slow path.
    if (c === 37 || c === 59 || c === 92 || c < 32 || c === 127) return false;
    if (c === 47 && i + 1 < end) {
      const next = s.charCodeAt(i + 1);
      if (next === 47 || next === 46) return false;
    }
  }
  return true;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function rebuild(raw: string): string | null {
  let decoded = raw;
  if (raw.indexOf('%') !== -1) {
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return null;
    }
  }
  if (CONTROL.test(decoded)) return null;
  const parts = decoded.replace(/\\/g, '/').split('/');
  const out: string[] = [];
  let directory = false;
  for (let i = 1; i < parts.length; i += 1) {
    let seg = parts[i];
    const semi = seg.indexOf(';');
    if (semi !== -1) seg = seg.slice(0, semi);
    const last = i === parts.length - 1;
    if (seg === '' || seg === '.') {
      directory = last && out.length > 0;
      continue;
    }
    if (seg === '..') {
      out.pop();
      directory = last && out.length > 0;
      continue;
    }
    out.push(seg);
    directory = false;
  }
  return `/${out.join('/')}${directory ? '/' : ''}`;
}

/**
 * The page background named by BACKGROUND_IMAGE (`backgroundImage` in `/api/app`). The gateway
 * validates the option at start-up; the UI still treats it as untrusted text, since a CSS value
 * is a language of its own: only an http(s) URL or a path on this host is used, and it is placed
 * in a quoted `url("…")` with every character outside the plain URL set escaped, so it cannot end
 * the string or the declaration. It is set through the CSSOM (a custom property), which the
 * pages' CSP (style-src 'self', no inline style) permits.
 */

const PLAIN = /[A-Za-z0-9\-._~:/?#@!$&*+,;=%]/;

/** `url("…")` for a background value, or null when it is none or not an http(s) URL / path. */
export function cssUrl(value: string): string | null {
  if (value === '' || !(/^https?:\/\//i.test(value) || (value.startsWith('/') && !value.startsWith('//')))) return null;
  let quoted = '';
  for (const c of value) quoted += PLAIN.test(c) ? c : `\\${(c.codePointAt(0) ?? 0).toString(16)} `;
  return `url("${quoted}")`;
}

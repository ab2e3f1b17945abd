/**
 * Escapes a value for use inside an LDAP search filter (RFC 4515, section 3): `*`, `(`, `)`, `\`
 * and NUL become `\2a`, `\28`, `\29`, `\5c` and `\00`, so a login can never add wildcards or
 * filter components of its own. Other characters, UTF-8 included, are allowed as they are.
 */
export function escapeFilterValue(value: string): string {
  let out = '';
  for (const ch of value) {
    switch (ch) {
      case '*':
        out += '\\2a';
        break;
      case '(':
        out += '\\28';
        break;
      case ')':
        out += '\\29';
        break;
      case '\\':
        out += '\\5c';
        break;
      case '\0':
        out += '\\00';
        break;
      default:
        out += ch;
    }
  }
  return out;
}

/**
 * Fills a filter template: every `%s` becomes the escaped `login`, every `%d` the escaped `dn`
 * (for group searches); `%%` is a literal `%`. Replacement happens in one pass, so text that a
 * value brings in is never expanded again.
 */
export function fillFilter(template: string, values: { readonly s: string; readonly d?: string }): string {
  return template.replace(/%([sd%])/g, (_m, key: string) => {
    if (key === '%') return '%';
    if (key === 'd') return escapeFilterValue(values.d ?? '');
    return escapeFilterValue(values.s);
  });
}

/**
 * Null when `template` is a usable filter with `%s` (or `%d` where allowed); else what is wrong.
 * `parseFilter` is an RFC 4515 parser that throws on a bad filter (ldapts's, handed in by
 * composition, which loads it only with LDAP).
 */
export function filterTemplateProblem(template: string, placeholders: 's' | 'sd', parseFilter: (filter: string) => unknown): string | null {
  if (!/%s/.test(template) && !(placeholders === 'sd' && /%d/.test(template))) {
    return placeholders === 's' ? 'must contain %s where the login goes, e.g. (uid=%s)' : 'must contain %s (username) or %d (user DN)';
  }
  if (!template.startsWith('(') || !template.endsWith(')')) return 'must be a parenthesized LDAP filter, e.g. (uid=%s)';
  if (!balanced(template)) return 'is not a valid LDAP filter (RFC 4515): its parentheses do not match';
  try {
    parseFilter(fillFilter(template, { s: 'probe', d: 'cn=probe' }));
    return null;
  } catch {
    return 'is not a valid LDAP filter (RFC 4515)';
  }
}

/** Whether unescaped parentheses pair up and the whole template is one parenthesized filter. */
function balanced(template: string): boolean {
  let depth = 0;
  for (let i = 0; i < template.length; i += 1) {
    const ch = template[i];
    if (ch === '\\') i += 1;
    else if (ch === '(') depth += 1;
    else if (ch === ')') {
      depth -= 1;
      if (depth < 0 || (depth === 0 && i !== template.length - 1)) return false;
    }
  }
  return depth === 0;
}

/**
 * Redirect targets that must never be followed for a gateway protecting `domain` (and its
 * subdomains): look-alike hosts, userinfo, backslashes, other schemes, relative and
 * protocol-relative forms, whitespace and control characters, percent-encoded tricks, and
 * garbage. The same forms as the unit test of `safeRedirectTarget`, parameterised by domain so
 * issue 17's hand-off runs them against every configured domain.
 */
export function openRedirectCorpus(domain: string): string[] {
  const app = `app.${domain}`;
  const [first, ...rest] = domain.split('.');
  const evil = 'evil.invalid';
  return [
    // Look-alikes off the domain.
    `https://evil${domain}/`,
    `https://${domain}.${evil}/`,
    `https://${first}x.${rest.join('.')}/`,
    `https://${evil}/?https://${app}/`,
    // Userinfo.
    `https://${app}@${evil}/`,
    `https://user:pw@${app}/`,
    `https://${evil}:x@${app}/`,
    // Backslashes.
    `https://${evil}\\@${app}/`,
    `https:\\\\${evil}`,
    `https://${app}\\.${evil}/`,
    // Other schemes.
    'javascript:alert(1)',
    `JavaScript://${app}/%0aalert(1)`,
    'data:text/html,hi',
    `ftp://${app}/`,
    'file:///etc/passwd',
    // Relative and protocol-relative.
    `//${evil}/`,
    `//${app}/`,
    `/\\${evil}`,
    '/path',
    `${app}/x`,
    `https:${app}`,
    `https:/${app}`,
    // Whitespace and control characters.
    ` https://${app}/`,
    `https://${app}/\n`,
    `https://${evil}\t.${domain}/`,
    `https://${app}/\u0000`,
    // Percent-encoded tricks.
    `https://${evil}%2F.${domain}/`,
    `https://${evil}%2f@${app}/`,
    `https://%65vil.invalid/`,
    `https://${evil}%00.${domain}/`,
    `https://${evil}%23.${domain}/`,
    // Malformed and oversized.
    'https://',
    'https:///path',
    `https://${app}:99999/`,
    `https://${app}/${'a'.repeat(5000)}`,
    '',
    // Addresses instead of names.
    'https://127.0.0.1/',
    'https://[::1]/',
  ];
}

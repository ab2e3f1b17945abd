import { err, ok, type Result } from './result';

/**
 * Who may log in through OAuth, from `OAUTH_WHITELIST`: everyone (empty), a list of e-mail
 * addresses and `*@domain` patterns, or one `/regex/` that must match the whole address.
 */
export type OAuthWhitelist =
  | { readonly kind: 'anyone' }
  | { readonly kind: 'list'; readonly emails: ReadonlySet<string>; readonly domains: ReadonlySet<string> }
  | { readonly kind: 'pattern'; readonly pattern: RegExp };

export const ANYONE: OAuthWhitelist = Object.freeze({ kind: 'anyone' });

const EMAIL = /^[^\s@,]+@[^\s@,]+$/;
const DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/** Parses the configured text; the error names what is wrong, never echoing more than the bad entry. */
export function parseOAuthWhitelist(raw: string | undefined): Result<OAuthWhitelist, string> {
  const text = raw?.trim() ?? '';
  if (text === '') return ok(ANYONE);
  if (text.length >= 2 && text.startsWith('/') && text.endsWith('/')) {
    try {
      // Anchored on purpose: an unanchored `/@example\.com/` would also let `x@example.com.evil.test` in.
      return ok({ kind: 'pattern', pattern: new RegExp(`^(?:${text.slice(1, -1)})$`, 'i') });
    } catch {
      return err('is not a valid regular expression');
    }
  }
  const emails = new Set<string>();
  const domains = new Set<string>();
  for (const entry of text
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((s) => s !== '')) {
    if (entry.startsWith('*@')) {
      const domain = entry.slice(2);
      if (!DOMAIN.test(domain)) return err(`entry "${entry}" is not a valid *@domain pattern`);
      domains.add(domain);
    } else if (EMAIL.test(entry) && !entry.includes('*')) {
      emails.add(entry);
    } else {
      return err(`entry "${entry}" is neither an e-mail address nor a *@domain pattern`);
    }
  }
  return ok({ kind: 'list', emails, domains });
}

/** True when `email` may log in. Domains match exactly (a `*@example.com` entry does not admit `sub.example.com`). */
export function isWhitelisted(whitelist: OAuthWhitelist, email: string): boolean {
  const address = email.trim().toLowerCase();
  if (address.length === 0 || address.length > 320) return false;
  switch (whitelist.kind) {
    case 'anyone':
      return true;
    case 'pattern':
      return whitelist.pattern.test(address);
    case 'list': {
      if (whitelist.emails.has(address)) return true;
      const at = address.lastIndexOf('@');
      return at > 0 && whitelist.domains.has(address.slice(at + 1));
    }
  }
}

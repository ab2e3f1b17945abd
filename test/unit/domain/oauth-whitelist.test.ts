import { isWhitelisted, parseOAuthWhitelist, type OAuthWhitelist } from '../../../src/domain/oauth-whitelist';

function parsed(text: string): OAuthWhitelist {
  const result = parseOAuthWhitelist(text);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe('OAuth whitelist', () => {
  it('admits everyone when empty', () => {
    expect(isWhitelisted(parsed(''), 'anyone@anywhere.test')).toBe(true);
    expect(isWhitelisted(parsed('   '), 'anyone@anywhere.test')).toBe(true);
  });

  it('admits listed addresses case-insensitively and nobody else', () => {
    const w = parsed('alice@example.com, Bob@Example.com');
    expect(isWhitelisted(w, 'ALICE@example.com')).toBe(true);
    expect(isWhitelisted(w, 'bob@example.com')).toBe(true);
    expect(isWhitelisted(w, 'carol@example.com')).toBe(false);
    expect(isWhitelisted(w, 'alice@example.com.evil.test')).toBe(false);
  });

  it('admits a whole domain with *@domain, but not its look-alikes or subdomains', () => {
    const w = parsed('*@example.com');
    expect(isWhitelisted(w, 'anyone@example.com')).toBe(true);
    expect(isWhitelisted(w, 'x@evilexample.com')).toBe(false);
    expect(isWhitelisted(w, 'x@example.com.evil.test')).toBe(false);
    expect(isWhitelisted(w, 'x@sub.example.com')).toBe(false);
  });

  it('matches a /regex/ against the whole address, so an unanchored pattern cannot be bypassed', () => {
    const w = parsed('/.*@example\\.com/');
    expect(isWhitelisted(w, 'a@example.com')).toBe(true);
    expect(isWhitelisted(w, 'a@example.com.evil.test')).toBe(false);
    expect(isWhitelisted(w, 'A@EXAMPLE.COM')).toBe(true);
  });

  it('refuses an empty address and an absurdly long one', () => {
    expect(isWhitelisted(parsed(''), '')).toBe(false);
    expect(isWhitelisted(parsed(''), `${'a'.repeat(320)}@x.test`)).toBe(false);
  });

  it.each(['alice', '*@', '*@exa mple.com', 'a*@example.com', '/(unclosed/'])('rejects the invalid whitelist %j with a reason', (text) => {
    const result = parseOAuthWhitelist(text);
    expect(result.ok).toBe(false);
  });
});

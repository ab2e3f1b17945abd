import {
  autoRedirectProvider,
  checkTarget,
  isProviderReturn,
  oauthProviders,
  providerLabel,
  reasonText,
  showsPasswordForm,
  withRedirect,
} from '../../../ui/src/navigation';

describe('checkTarget', () => {
  test('accepts the protected domain itself and its subdomains over http and https', () => {
    expect(checkTarget('https://example.com/x', 'example.com').ok).toBe(true);
    expect(checkTarget('http://app.example.com:8080/a?b=c', 'example.com').ok).toBe(true);
    expect(checkTarget('https://deep.app.EXAMPLE.com./', 'example.com').ok).toBe(true);
  });

  test("refuses a host that only ends with the domain's text", () => {
    expect(checkTarget('https://evilexample.com/', 'example.com')).toEqual({ ok: false, reason: 'off_domain' });
    expect(checkTarget('https://example.com.evil.test/', 'example.com')).toEqual({ ok: false, reason: 'off_domain' });
  });

  test('refuses schemes other than http and https', () => {
    expect(checkTarget('javascript:alert(1)', 'example.com')).toEqual({ ok: false, reason: 'bad_scheme' });
    expect(checkTarget('data:text/html,hi', 'example.com')).toEqual({ ok: false, reason: 'bad_scheme' });
    expect(checkTarget('ftp://app.example.com/', 'example.com')).toEqual({ ok: false, reason: 'bad_scheme' });
  });

  test('refuses relative or malformed addresses and addresses with credentials', () => {
    expect(checkTarget('/dashboard', 'example.com')).toEqual({ ok: false, reason: 'not_a_url' });
    expect(checkTarget('https://user:pw@app.example.com/', 'example.com')).toEqual({ ok: false, reason: 'credentials' });
  });

  test('a one-label or IP domain protects only that host', () => {
    expect(checkTarget('http://localhost:8080/', 'localhost').ok).toBe(true);
    expect(checkTarget('http://app.localhost/', 'localhost')).toEqual({ ok: false, reason: 'off_domain' });
    expect(checkTarget('http://10.0.0.5/', '10.0.0.5').ok).toBe(true);
    expect(checkTarget('http://10.0.0.55/', '10.0.0.5')).toEqual({ ok: false, reason: 'off_domain' });
  });

  test('an empty domain accepts nothing', () => {
    expect(checkTarget('https://example.com/', '')).toEqual({ ok: false, reason: 'off_domain' });
  });
});

describe('withRedirect', () => {
  test('carries the redirect_uri along, encoded, and leaves the path alone without one', () => {
    expect(withRedirect('/totp', 'https://a.example.com/x?y=1&z=2')).toBe('/totp?redirect_uri=https%3A%2F%2Fa.example.com%2Fx%3Fy%3D1%26z%3D2');
    expect(withRedirect('/totp', null)).toBe('/totp');
    expect(withRedirect('/totp', '')).toBe('/totp');
  });
});

describe('providers', () => {
  test("OAuth buttons follow the gateway's order and leave local accounts out", () => {
    expect(oauthProviders(['github', 'google', 'generic', 'username'])).toEqual(['github', 'google', 'generic']);
  });

  test('the generic provider is labelled with genericName', () => {
    expect(providerLabel('generic', 'Example SSO')).toBe('Example SSO');
    expect(providerLabel('github', 'Example SSO')).toBe('GitHub');
    expect(providerLabel('google', '')).toBe('Google');
    expect(providerLabel('corp-sso', 'Example SSO', [{ id: 'corp-sso', name: 'Corp SSO' }])).toBe('Corp SSO');
    expect(providerLabel('corp-sso', 'Example SSO')).toBe('corp-sso');
  });

  test('the password form shows unless only OAuth providers are configured', () => {
    expect(showsPasswordForm(['username'])).toBe(true);
    expect(showsPasswordForm(['github', 'username'])).toBe(true);
    expect(showsPasswordForm(['github', 'generic'])).toBe(false);
    expect(showsPasswordForm(['pocket', 'corp-sso'])).toBe(false);
    expect(oauthProviders(['github', 'corp-sso', 'username'])).toEqual(['github', 'corp-sso']);
    expect(showsPasswordForm([])).toBe(true);
  });

  test('auto-redirect needs a configured provider and a redirect_uri', () => {
    expect(autoRedirectProvider('generic', ['generic', 'username'], 'https://a.example.com/')).toBe('generic');
    expect(autoRedirectProvider('generic', ['generic', 'username'], null)).toBeNull();
    expect(autoRedirectProvider('google', ['generic'], 'https://a.example.com/')).toBeNull();
    expect(autoRedirectProvider('none', ['generic'], 'https://a.example.com/')).toBeNull();
  });
});

describe('reasonText', () => {
  test("explains the OAuth callback's reason codes and passes unknown ones through as they are", () => {
    expect(reasonText('not_whitelisted')).toBe('This account is not on the list of accounts allowed to log in here.');
    expect(reasonText('provider_denied')).toContain('did not grant the login');
    expect(reasonText('something new')).toBe('something new');
    expect(reasonText('constructor')).toBe('constructor');
    expect(reasonText('identity_invalid')).toContain('cannot be used here');
  });
});

describe('isProviderReturn', () => {
  const origin = 'https://auth.example.com';
  it("goes straight back to this gateway's OpenID Connect interaction or authorization request, and nowhere else", () => {
    expect(isProviderReturn(new URL('https://auth.example.com/oidc/interaction/abc_DEF-1'), origin)).toBe(true);
    expect(isProviderReturn(new URL('https://app.example.com/oidc/interaction/abc'), origin)).toBe(false);
    expect(isProviderReturn(new URL('http://auth.example.com/oidc/interaction/abc'), origin)).toBe(false);
    expect(isProviderReturn(new URL('https://auth.example.com/oidc/interaction/abc/x'), origin)).toBe(false);
    expect(isProviderReturn(new URL('https://auth.example.com/oidc/interaction/abc?next=x'), origin)).toBe(false);
    expect(isProviderReturn(new URL('https://auth.example.com/oidc/auth?client_id=app&response_type=code'), origin)).toBe(true);
    expect(isProviderReturn(new URL('https://auth.example.com/oidc/auth'), origin)).toBe(false);
    expect(isProviderReturn(new URL('https://app.example.com/oidc/auth?client_id=app'), origin)).toBe(false);
    expect(isProviderReturn(new URL('https://auth.example.com/oidc/authx?client_id=app'), origin)).toBe(false);
    expect(isProviderReturn(new URL('https://auth.example.com/logout'), origin)).toBe(false);
  });
});

import { checkTokenRequest, isLiveToken, isTokenShaped, TOKEN_LENGTH, type AccessTokenRecord } from '../../../src/domain/access-token';

describe('access tokens (issue 32)', () => {
  const good = `pct_${'A1b2_-'.repeat(7)}x`;

  it('recognises a token by prefix, exact length and alphabet only', () => {
    expect(good).toHaveLength(TOKEN_LENGTH);
    expect(isTokenShaped(good)).toBe(true);
    expect(isTokenShaped(good.slice(0, -1))).toBe(false);
    expect(isTokenShaped(`${good}x`)).toBe(false);
    expect(isTokenShaped(good.replace('pct_', 'pat_'))).toBe(false);
    expect(isTokenShaped(good.replace('A', '+'))).toBe(false);
    expect(isTokenShaped('')).toBe(false);
  });

  it('lives until it expires or is revoked', () => {
    const record: AccessTokenRecord = {
      id: 'a',
      hash: 'h',
      username: 'u',
      name: 'n',
      apps: null,
      createdAt: 0,
      expiresAt: 100,
      lastUsedAt: null,
      revokedAt: null,
    };
    expect(isLiveToken(record, 99)).toBe(true);
    expect(isLiveToken(record, 100)).toBe(false);
    expect(isLiveToken({ ...record, revokedAt: 50 }, 60)).toBe(false);
  });

  it('checks a request: a name, optional distinct app names, an expiry within the bound', () => {
    expect(checkTokenRequest({ name: ' ci ' }, 365)).toEqual({ ok: true, name: 'ci', apps: null, days: 365 });
    expect(checkTokenRequest({ name: 'ci', apps: ['wiki', 'wiki', 'ci'], expiresInDays: 30 }, 365)).toEqual({
      ok: true,
      name: 'ci',
      apps: ['wiki', 'ci'],
      days: 30,
    });
    expect(checkTokenRequest({ name: '' }, 365)).toEqual({ ok: false, fields: ['name'] });
    expect(checkTokenRequest({ name: 'a\nb' }, 365)).toEqual({ ok: false, fields: ['name'] });
    expect(checkTokenRequest({ name: 'x'.repeat(65) }, 365)).toEqual({ ok: false, fields: ['name'] });
    expect(checkTokenRequest({ name: 'ci', apps: [] }, 365)).toEqual({ ok: false, fields: ['apps'] });
    expect(checkTokenRequest({ name: 'ci', apps: ['../x'] }, 365)).toEqual({ ok: false, fields: ['apps'] });
    expect(checkTokenRequest({ name: 'ci', apps: 'wiki' }, 365)).toEqual({ ok: false, fields: ['apps'] });
    expect(checkTokenRequest({ name: 'ci', expiresInDays: 366 }, 365)).toEqual({ ok: false, fields: ['expiresInDays'] });
    expect(checkTokenRequest({ name: 'ci', expiresInDays: 1.5 }, 365)).toEqual({ ok: false, fields: ['expiresInDays'] });
    expect(checkTokenRequest({ name: 7, apps: 3, expiresInDays: '3' }, 365)).toEqual({ ok: false, fields: ['name', 'apps', 'expiresInDays'] });
  });
});

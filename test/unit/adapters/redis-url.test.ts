import { describeRedisTarget, parseRedisUrl } from '../../../src/config/redis-url';

describe('parseRedisUrl', () => {
  it('reads a plain URL with password and database', () => {
    expect(parseRedisUrl('redis://:s3cret@redis.internal:6380/2')).toEqual({
      ok: true,
      target: { kind: 'standalone', host: 'redis.internal', port: 6380, db: 2, tls: false, username: undefined, password: 's3cret' },
    });
  });

  it('defaults the port to 6379 and the database to 0', () => {
    const r = parseRedisUrl('redis://localhost');
    expect(r.ok && r.target).toMatchObject({ host: 'localhost', port: 6379, db: 0 });
  });

  it('turns TLS on for rediss:// and keeps a user name', () => {
    const r = parseRedisUrl('rediss://app:pw@cache.example.com');
    expect(r.ok && r.target).toMatchObject({ kind: 'standalone', tls: true, username: 'app', password: 'pw' });
  });

  it('reads a password written without a user (redis://secret@host)', () => {
    const r = parseRedisUrl('redis://only-a-password@h');
    expect(r.ok && r.target).toMatchObject({ username: undefined, password: 'only-a-password' });
  });

  it('reads a bracketed IPv6 host', () => {
    const r = parseRedisUrl('redis://[::1]:7000');
    expect(r.ok && r.target).toMatchObject({ host: '::1', port: 7000 });
  });

  it('reads a Sentinel URL: sentinel list, master name, database, sentinel password', () => {
    expect(parseRedisUrl('redis+sentinel://:pw@s1:26379,s2,10.0.0.3:26380/mymaster/1?sentinelPassword=sp')).toEqual({
      ok: true,
      target: {
        kind: 'sentinel',
        sentinels: [
          { host: 's1', port: 26379 },
          { host: 's2', port: 26379 },
          { host: '10.0.0.3', port: 26380 },
        ],
        masterName: 'mymaster',
        db: 1,
        tls: false,
        username: undefined,
        password: 'pw',
        sentinelPassword: 'sp',
      },
    });
  });

  it('turns TLS on for rediss+sentinel://', () => {
    const r = parseRedisUrl('rediss+sentinel://s1:26379/m');
    expect(r.ok && r.target).toMatchObject({ kind: 'sentinel', tls: true, masterName: 'm' });
  });

  it.each([
    ['http://host', 'unknown scheme'],
    ['redis://', 'no valid host'],
    ['redis://host:99999', 'no valid host'],
    ['redis://host/abc', 'not a number'],
    ['redis+sentinel://s1:26379', 'master group'],
    ['redis+sentinel://s1:26379,/m', 'sentinel host:port'],
    ['redis://h?foo=1', 'unknown query parameter'],
  ])('refuses %s', (url, why) => {
    const r = parseRedisUrl(url);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toContain(why);
  });

  it('never repeats the password in a problem', () => {
    const r = parseRedisUrl('redis://:hunter2-secret@host/notanumber');
    expect(!r.ok && r.problem).not.toContain('hunter2');
  });

  it('describes a target without its credentials', () => {
    const r = parseRedisUrl('redis+sentinel://:pw@s1:26379,s2:26379/m');
    if (!r.ok) throw new Error(r.problem);
    expect(describeRedisTarget(r.target)).toBe('redis+sentinel://s1:26379,s2:26379/m/0');
  });
});

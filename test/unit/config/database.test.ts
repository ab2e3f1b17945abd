import { loadConfig } from '../../../src/composition/config';
import { secretFlagWarnings } from '../../../src/config/flags';

const BASE = {
  APP_URL: 'https://auth.example.com',
  SECRET: 'database-config-secret-0123456789-abcdef',
  USERS: 'alice:$2b$04$UnMBB73r7mURlW7L7zzvp.0AN8r0AAdT4b4Y1mW55rx0MJYyrsHTK',
};

function problemsOf(env: Record<string, string>, files: Record<string, string> = {}): string[] {
  const loaded = loadConfig({
    env: { ...BASE, ...env },
    readFile: (p) => {
      if (files[p] === undefined) throw new Error('ENOENT');
      return files[p];
    },
  });
  return loaded.ok ? [] : loaded.problems;
}

describe('DATABASE_ options', () => {
  it('reads DATABASE_URL into a PostgreSQL target, plain TCP unless told', () => {
    const loaded = loadConfig({ env: { ...BASE, DATABASE_URL: 'postgres://portcullis:s3cret@db.internal:5432/portcullis' } });
    expect(loaded.ok && loaded.config.database).toEqual({ url: 'postgres://portcullis:s3cret@db.internal:5432/portcullis', ssl: null, ca: null });
  });

  it('reads the URL from DATABASE_URL_FILE, so the password stays out of the environment', () => {
    const loaded = loadConfig({ env: { ...BASE, DATABASE_URL_FILE: '/run/secrets/db' }, readFile: () => 'postgresql://p:pw@db/portcullis\n' });
    expect(loaded.ok && loaded.config.database?.url).toBe('postgresql://p:pw@db/portcullis');
  });

  it('takes DATABASE_SSL=verify-full with a CA file', () => {
    const loaded = loadConfig({
      env: { ...BASE, DATABASE_URL: 'postgres://p:pw@db/portcullis', DATABASE_SSL: 'verify-full', DATABASE_CA_FILE: '/ca.pem' },
      readFile: () => '-----BEGIN CERTIFICATE-----',
    });
    expect(loaded.ok && loaded.config.database).toEqual({ url: 'postgres://p:pw@db/portcullis', ssl: 'verify-full', ca: '-----BEGIN CERTIFICATE-----' });
  });

  it('refuses a URL that is not postgres:// without repeating it (it holds a password)', () => {
    const problems = problemsOf({ DATABASE_URL: 'mysql://root:hunter2@db/x' });
    expect(problems).toEqual(['DATABASE_URL must look like postgres://user:password@host:5432/database']);
    expect(problems.join()).not.toContain('hunter2');
  });

  it('refuses an unknown DATABASE_SSL, a CA without verify-full, TLS set twice, and TLS options without a URL', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://p:pw@db/x', DATABASE_SSL: 'prefer' })).toEqual(['DATABASE_SSL must be require or verify-full']);
    expect(problemsOf({ DATABASE_URL: 'postgres://p:pw@db/x', DATABASE_SSL: 'require', DATABASE_CA_FILE: '/ca.pem' }, { '/ca.pem': 'x' })).toEqual([
      'DATABASE_CA_FILE needs DATABASE_SSL=verify-full',
    ]);
    expect(problemsOf({ DATABASE_URL: 'postgres://p:pw@db/x?sslmode=require', DATABASE_SSL: 'require' })).toEqual([
      'set TLS either with DATABASE_SSL or with sslmode in DATABASE_URL, not both',
    ]);
    expect(problemsOf({ DATABASE_SSL: 'require' })).toEqual(['DATABASE_SSL and DATABASE_CA_FILE need DATABASE_URL']);
    expect(problemsOf({ DATABASE_URL: 'postgres://p:pw@db/x', DATABASE_SSL: 'verify-full', DATABASE_CA_FILE: '/missing.pem' })).toEqual([
      'DATABASE_CA_FILE: cannot read /missing.pem',
    ]);
  });

  it('refuses both DATABASE_URL and DATABASE_URL_FILE', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://p:pw@db/x', DATABASE_URL_FILE: '/f' }, { '/f': 'postgres://p:pw@db/x' })).toEqual([
      'set either DATABASE_URL or DATABASE_URL_FILE, not both',
    ]);
  });

  it('warns about a DATABASE_URL with a password given as a flag', () => {
    expect(secretFlagWarnings(['--database-url', 'postgres://p:pw@db/x'])).toHaveLength(1);
    expect(secretFlagWarnings(['--database-url', 'postgres://db/x'])).toHaveLength(0);
  });
});

import { loadConfig } from '../../../src/composition/config';
import { flagsToEnv } from '../../../src/config/flags';
import { unknownOptionWarnings } from '../../../src/config/option-docs';
import { TEST_SECRET } from '../../support/credentials';

const base = { APP_URL: 'https://auth.example.com', SECRET: TEST_SECRET, USERS: 'alice:$2b$04$abcdefghijklmnopqrstuuVn1x3QUyb1WR6zBTBkzWz1QpXG8XHMm' };
const load = (env: Record<string, string>) => loadConfig({ env: { ...base, ...env } });
const problemsOf = (env: Record<string, string>): string[] => {
  const loaded = load(env);
  return loaded.ok ? [] : loaded.problems;
};
const ci = { JWT_ISSUERS_CI_ISSUER: 'https://token.actions.example.test', JWT_ISSUERS_CI_AUDIENCE: 'https://auth.example.com' };

describe('JWT_ISSUERS_<ID>_* configuration (workload JWTs)', () => {
  it('is off without issuers', () => {
    const loaded = load({});
    expect(loaded.ok && loaded.config.jwtIssuers).toEqual([]);
  });

  it('reads an issuer with its defaults, and one with every field', () => {
    const loaded = load({
      ...ci,
      JWT_ISSUERS_K8S_PROD_ISSUER: 'http://127.0.0.1:8443/',
      JWT_ISSUERS_K8S_PROD_AUDIENCE: 'portcullis, gateway',
      JWT_ISSUERS_K8S_PROD_JWKS_URL: 'http://localhost:8443/openid/v1/jwks',
      JWT_ISSUERS_K8S_PROD_USERNAME_CLAIM: 'kubernetes.io',
      JWT_ISSUERS_K8S_PROD_GROUPS_CLAIM: 'groups',
      JWT_ISSUERS_K8S_PROD_ALGORITHMS: 'ES384,EdDSA,ES384',
    });
    expect(loaded.ok && loaded.config.jwtIssuers).toEqual([
      { id: 'ci', issuer: 'https://token.actions.example.test', audiences: ['https://auth.example.com'], usernameClaim: 'sub', algorithms: ['RS256', 'ES256'] },
      {
        id: 'k8s-prod',
        issuer: 'http://127.0.0.1:8443/',
        audiences: ['portcullis', 'gateway'],
        jwksUrl: 'http://localhost:8443/openid/v1/jwks',
        usernameClaim: 'kubernetes.io',
        groupsClaim: 'groups',
        algorithms: ['ES384', 'EdDSA'],
      },
    ]);
  });

  it('requires an issuer URL (https, http only on this machine) and an audience', () => {
    expect(problemsOf({ JWT_ISSUERS_CI_AUDIENCE: 'x' })).toEqual(['JWT_ISSUERS_CI_ISSUER is required: the iss of the tokens this issuer signs']);
    expect(problemsOf({ JWT_ISSUERS_CI_ISSUER: 'https://ci.example.test' })).toEqual([
      'JWT_ISSUERS_CI_AUDIENCE is required: the aud its tokens carry for this gateway',
    ]);
    for (const issuer of [
      'http://ci.example.test',
      'https://u:p@ci.example.test',
      'https://ci.example.test/?x=1',
      'ftp://ci.example.test',
      'ci.example.test',
    ]) {
      expect(problemsOf({ ...ci, JWT_ISSUERS_CI_ISSUER: issuer })).toEqual([
        'JWT_ISSUERS_CI_ISSUER must be an https URL (http only on localhost) without credentials, query or fragment',
      ]);
    }
    expect(problemsOf({ ...ci, JWT_ISSUERS_CI_JWKS_URL: 'http://keys.example.test/jwks' })).toEqual([
      'JWT_ISSUERS_CI_JWKS_URL must be an https URL (http only on localhost) without credentials, query or fragment',
    ]);
  });

  it('refuses none and HMAC algorithms, and unknown ones, with a clear problem', () => {
    expect(problemsOf({ ...ci, JWT_ISSUERS_CI_ALGORITHMS: 'RS256,HS256' })).toEqual([
      'JWT_ISSUERS_CI_ALGORITHMS: HS256 refused: none and HMAC algorithms would let a shared secret or no key at all sign tokens',
    ]);
    expect(problemsOf({ ...ci, JWT_ISSUERS_CI_ALGORITHMS: 'none' })[0]).toMatch(/none refused/);
    expect(problemsOf({ ...ci, JWT_ISSUERS_CI_ALGORITHMS: 'RS257' })).toEqual([
      'JWT_ISSUERS_CI_ALGORITHMS: unknown algorithm RS257 (allowed: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA)',
    ]);
  });

  it('refuses two ids for one issuer, a malformed id and a claim name with spaces', () => {
    expect(problemsOf({ ...ci, JWT_ISSUERS_CI2_ISSUER: ci.JWT_ISSUERS_CI_ISSUER, JWT_ISSUERS_CI2_AUDIENCE: 'x' })).toEqual([
      "JWT_ISSUERS_CI2_ISSUER is also the issuer of JWT_ISSUERS_CI: one id per issuer (its tokens' iss picks it)",
    ]);
    expect(problemsOf({ JWT_ISSUERS_C__I_ISSUER: 'https://x.example.test' })[0]).toMatch(/^JWT_ISSUERS_C__I_ISSUER: the <ID> part must be/);
    expect(problemsOf({ ...ci, JWT_ISSUERS_CI_GROUPS_CLAIM: 'my groups' })).toEqual([
      'JWT_ISSUERS_CI_GROUPS_CLAIM must be a claim name: 1 to 64 printable characters without spaces',
    ]);
  });

  it('is known to the unknown-option warnings and to the flags', () => {
    expect(unknownOptionWarnings({ ...ci, JWT_ISSUERS_CI_AUDIENCES: 'x' })).toEqual([
      'JWT_ISSUERS_CI_AUDIENCES is not a Portcullis option and is ignored (see portcullis serve --help)',
    ]);
    expect(flagsToEnv(['--jwt-issuers-ci-issuer', 'https://ci.example.test'])).toEqual({
      env: { JWT_ISSUERS_CI_ISSUER: 'https://ci.example.test' },
      problems: [],
    });
  });
});

import { hashOf } from '../../support/credentials';
import { loginCookie } from '../../support/http';
import { startGateway, type RunningGateway } from '../../support/server';

/**
 * tinyauth's own login UI (v3.6.2) run against this API. It validates `/api/app` and `/api/user`
 * with a strict schema (frontend/src/schemas/*-context-schema.ts) and renders nothing when either
 * fails. The facts below are that schema's required fields and types, written out by hand:
 *
 *   app:  configuredProviders string[], disableContinue boolean, title, genericName, domain,
 *         forgotPasswordMessage strings, oauthAutoRedirect one of none/github/google/generic,
 *         backgroundImage string (the field this gateway lacked).
 *   user: isLoggedIn boolean, username, name, email, provider strings, oauth boolean, and
 *         totpPending a JSON boolean. Our API contract (part 2.5) makes totpPending a string
 *         ("true"/"false") and the issue keeps it so: that one field stays a known difference.
 */
type Check = 'string' | 'boolean' | 'string[]' | readonly string[];

const TINYAUTH_APP: Record<string, Check> = {
  configuredProviders: 'string[]',
  disableContinue: 'boolean',
  title: 'string',
  genericName: 'string',
  domain: 'string',
  forgotPasswordMessage: 'string',
  oauthAutoRedirect: ['none', 'github', 'google', 'generic'],
  backgroundImage: 'string',
};

const TINYAUTH_USER: Record<string, Check> = {
  isLoggedIn: 'boolean',
  username: 'string',
  name: 'string',
  email: 'string',
  provider: 'string',
  oauth: 'boolean',
};

/** The fields of `body` that do not satisfy `schema`: missing, or of another type or value. */
function violations(body: Record<string, unknown>, schema: Record<string, Check>): string[] {
  const wrong: string[] = [];
  for (const [field, check] of Object.entries(schema)) {
    const value = body[field];
    const ok =
      check === 'string[]'
        ? Array.isArray(value) && value.every((v) => typeof v === 'string')
        : typeof check === 'string'
          ? typeof value === check
          : typeof value === 'string' && check.includes(value);
    if (!ok) wrong.push(`${field}: ${JSON.stringify(value)}`);
  }
  return wrong;
}

describe("tinyauth v3.6.2's login UI against this API", () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('alice-pw')}` });
  });
  afterAll(() => gw.close());

  const json = async (path: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> =>
    (await (await fetch(`${gw.url}${path}`, { headers })).json()) as Record<string, unknown>;

  it('finds every field its app-context schema requires in /api/app, backgroundImage included, with its type', async () => {
    expect(violations(await json('/api/app'), TINYAUTH_APP)).toEqual([]);
  });

  it('finds backgroundImage a string also when BACKGROUND_IMAGE is set, and an oauthAutoRedirect it knows', async () => {
    const configured = await startGateway({ USERS: `alice:${hashOf('alice-pw')}`, BACKGROUND_IMAGE: '/bg.jpg' });
    try {
      const body = (await (await fetch(`${configured.url}/api/app`)).json()) as Record<string, unknown>;
      expect(violations(body, TINYAUTH_APP)).toEqual([]);
      expect(body.backgroundImage).toBe('/bg.jpg');
    } finally {
      await configured.close();
    }
  });

  it('finds every field its user-context schema requires in /api/user, logged out and logged in', async () => {
    expect(violations(await json('/api/user'), TINYAUTH_USER)).toEqual([]);
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    const body = await json('/api/user', { cookie });
    expect(body.isLoggedIn).toBe(true);
    expect(violations(body, TINYAUTH_USER)).toEqual([]);
  });

  it('keeps totpPending the textual boolean of our API contract, where tinyauth 3.6.2 expects a JSON boolean', async () => {
    expect((await json('/api/user')).totpPending).toBe('false');
  });
});

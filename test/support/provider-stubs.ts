import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { json, startStub, type StubServer } from './stub-http';

/**
 * Stand-ins for GitHub's and Google's public OAuth APIs, which the test network cannot reach.
 * They answer in the shapes those APIs document (token endpoint, GitHub `/user` and
 * `/user/emails`, Google userinfo), check the client credentials, the redirect URI and the PKCE
 * verifier, and issue single-use codes. The generic provider is tested against a real OIDC server
 * instead (test/support/oidc-server.mjs).
 */
export interface ProviderStub extends StubServer {
  /** Plays the authorization step: a code for `account` bound to the URL's challenge and redirect URI. */
  issueCode(authorizationUrl: string, account: string): string;
  /** Token requests received so far (to prove a refused callback never reached the code exchange). */
  readonly tokenRequests: () => number;
}

interface PendingCode {
  account: string;
  challenge: string;
  redirectUri: string;
  scopes: string[];
}

export interface StubAccount {
  readonly github?: {
    login: string;
    name: string | null;
    email: string | null;
    emails: { email: string; primary: boolean; verified: boolean }[];
    /** Organisation logins (GitHub `/user/orgs`), answered only to a token with the `read:org` scope. */
    orgs?: string[];
    /** Team memberships (GitHub `/user/teams`), as organisation login and team slug. */
    teams?: { org: string; slug: string }[];
  };
  readonly google?: { sub: string; email?: string; email_verified?: boolean; name?: string; hd?: string };
}

export const STUB_CLIENT = { id: 'stub-client', secret: 'stub-secret-value' };

function basicCredentials(req: IncomingMessage): { id: string; secret: string } | null {
  const h = req.headers.authorization;
  if (h === undefined || !h.startsWith('Basic ')) return null;
  const [id, secret] = Buffer.from(h.slice(6), 'base64').toString().split(':').map(decodeURIComponent);
  return { id, secret };
}

export async function startProviderStub(kind: 'github' | 'google', accounts: Record<string, StubAccount>): Promise<ProviderStub> {
  const codes = new Map<string, PendingCode>();
  const tokens = new Map<string, { account: string; scopes: string[] }>();
  let tokenRequests = 0;
  const stub = await startStub((req, res, body) => {
    const path = (req.url ?? '').split('?')[0];
    const tokenPath = kind === 'github' ? '/login/oauth/access_token' : '/token';
    if (req.method === 'POST' && path === tokenPath) {
      tokenRequests += 1;
      const form = new URLSearchParams(body);
      // GitHub takes the client credentials as form fields, Google in the Basic header (both accept either; we check what the adapter sends).
      const creds = kind === 'github' ? { id: form.get('client_id'), secret: form.get('client_secret') } : basicCredentials(req);
      if (creds?.id !== STUB_CLIENT.id || creds.secret !== STUB_CLIENT.secret) return json(res, 401, { error: 'invalid_client' });
      const pending = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const ok =
        form.get('grant_type') === 'authorization_code' &&
        pending !== undefined &&
        pending.redirectUri === form.get('redirect_uri') &&
        createHash('sha256').update(verifier).digest('base64url') === pending.challenge;
      if (!ok) {
        // GitHub reports a bad code with 200 and an error field; Google with 400 invalid_grant.
        return kind === 'github' ? json(res, 200, { error: 'bad_verification_code' }) : json(res, 400, { error: 'invalid_grant' });
      }
      const token = randomBytes(16).toString('hex');
      tokens.set(token, { account: pending.account, scopes: pending.scopes });
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: kind === 'github' ? 'read:user,user:email' : 'openid email profile' });
    }
    const auth = req.headers.authorization ?? '';
    const granted = tokens.get(auth.replace(/^Bearer /, ''));
    if (granted === undefined) return json(res, 401, { message: 'Bad credentials' });
    const data = accounts[granted.account];
    if (kind === 'github' && req.headers['user-agent'] === undefined) return json(res, 403, { message: 'User-Agent required' });
    if (kind === 'github' && path === '/api/v3/user')
      return json(res, 200, { id: 1, login: data.github!.login, name: data.github!.name, email: data.github!.email });
    if (kind === 'github' && path === '/api/v3/user/emails')
      return json(
        res,
        200,
        data.github!.emails.map((e) => ({ ...e, visibility: 'private' })),
      );
    // GitHub lists private memberships only with read:org; without it a real token would see public ones, here none.
    const readOrg = granted.scopes.includes('read:org');
    if (kind === 'github' && path === '/api/v3/user/orgs')
      return json(
        res,
        200,
        (readOrg ? (data.github!.orgs ?? []) : []).map((login, i) => ({ login, id: 100 + i, url: `https://api.github.test/orgs/${login}`, description: null })),
      );
    if (kind === 'github' && path === '/api/v3/user/teams')
      return json(
        res,
        200,
        (readOrg ? (data.github!.teams ?? []) : []).map((t, i) => ({
          id: 200 + i,
          name: t.slug.toUpperCase(),
          slug: t.slug,
          organization: { login: t.org, id: 300 + i },
        })),
      );
    if (kind === 'google' && path === '/v1/userinfo') return json(res, 200, data.google);
    return json(res, 404, { message: 'Not Found' });
  });
  return {
    ...stub,
    issueCode(authorizationUrl: string, account: string): string {
      const q = new URL(authorizationUrl).searchParams;
      if (q.get('client_id') !== STUB_CLIENT.id || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256')
        throw new Error('bad authorization URL');
      const code = randomBytes(12).toString('hex');
      codes.set(code, {
        account,
        challenge: q.get('code_challenge') ?? '',
        redirectUri: q.get('redirect_uri') ?? '',
        scopes: (q.get('scope') ?? '').split(/[ ,]+/),
      });
      return code;
    },
    tokenRequests: () => tokenRequests,
  };
}

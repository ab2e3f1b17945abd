/** The gateway's JSON API as the UI uses it (see the API spec, parts 2 and 4). */

// Type only, erased by the build: the server's own declaration of what `/api/app` answers.
import type { AppContext } from '../../src/adapters/http/app-context';

export type { AppContext };

export interface UserContext {
  readonly isLoggedIn: boolean;
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly provider: string;
  readonly oauth: boolean;
  readonly totpPending: string;
}

/** Any answer: the envelope, the rest of the body, and `Retry-After` when the gateway sent one. */
export interface Answer {
  readonly status: number;
  readonly message: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly retryAfter: string | null;
}

/** Thrown when the gateway cannot be reached or answers with something that is not our JSON. */
export class UnreachableError extends Error {}

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new UnreachableError('network');
  }
  let parsed: unknown;
  try {
    parsed = await res.json();
  } catch {
    throw new UnreachableError('not json');
  }
  const record = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  return {
    status: res.status,
    message: typeof record.message === 'string' ? record.message : '',
    body: record,
    retryAfter: res.headers.get('Retry-After'),
  };
}

export const api = {
  app: async (): Promise<AppContext> => (await call('GET', '/api/app')).body as unknown as AppContext,
  user: async (): Promise<UserContext> => (await call('GET', '/api/user')).body as unknown as UserContext,
  login: (email: string, password: string): Promise<Answer> => call('POST', '/api/login', { email, password }),
  totp: (code: string): Promise<Answer> => call('POST', '/api/totp', { code }),
  logout: (): Promise<Answer> => call('POST', '/api/logout', {}),
  oauthUrl: (provider: string, redirectUri: string | null): Promise<Answer> =>
    call('GET', `/api/oauth/url/${encodeURIComponent(provider)}${redirectUri ? `?redirect_uri=${encodeURIComponent(redirectUri)}` : ''}`),
};

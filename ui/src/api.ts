/** The gateway's JSON API as the UI uses it (see the API spec, parts 2 and 4). */

// Types only, erased by the build: the server's own declarations of what `/api/app` answers and
// of the `code` every answer carries, so a code the server drops or renames is a compile error here.
import type { AppContext } from '../../src/adapters/http/app-context';
import type {
  AccountCode,
  AnswerCode,
  CompleteStepUpCode,
  CreateTokenCode,
  DescribeStepUpCode,
  ListTokensCode,
  LoginCode,
  RevokeSessionsCode,
  RevokeTokenCode,
  SignOutOfAppCode,
  TotpCode,
} from '../../src/adapters/http/messages';
import type { Answer } from './answer';

export type { Answer, AppContext };

export interface UserContext {
  readonly isLoggedIn: boolean;
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly provider: string;
  readonly oauth: boolean;
  readonly totpPending: string;
  /** A pending login's accepted second factors (`totp`, `passkey`); absent otherwise. */
  readonly secondFactors?: readonly string[];
  /** A session's proofs (issue 33): each method's time (ms), and the latest; absent for HTTP Basic and older gateways. */
  readonly proven?: Readonly<Record<string, number>>;
  readonly acr?: string;
  readonly authTime?: number | null;
}

/** What a step-up proves: the password again, a TOTP code, or a passkey's assertion. */
export type StepUpProof =
  | { readonly method: 'password'; readonly password: string }
  | { readonly method: 'totp'; readonly code: string }
  | { readonly method: 'passkey'; readonly response: unknown };

/** Thrown when the gateway cannot be reached or answers with something that is not our JSON. */
export class UnreachableError extends Error {}

/** The wait in seconds: the body's `retryAfter`, else the `Retry-After` header (as seconds), else null. */
function retryAfterOf(record: Record<string, unknown>, header: string | null): number | null {
  if (typeof record.retryAfter === 'number' && Number.isFinite(record.retryAfter) && record.retryAfter >= 0) return record.retryAfter;
  if (header !== null && /^\d+$/.test(header.trim())) return Number(header.trim());
  return null;
}

/** One request to the gateway's JSON API, read into an {@link Answer}; {@link UnreachableError} when there is no JSON answer. */
export async function call<C extends string = AnswerCode>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer<C>> {
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
    code: typeof record.code === 'string' ? (record.code as C) : '',
    message: typeof record.message === 'string' ? record.message : '',
    body: record,
    retryAfter: retryAfterOf(record, res.headers.get('Retry-After')),
  };
}

export const api = {
  app: async (): Promise<AppContext> => (await call('GET', '/api/app')).body as unknown as AppContext,
  user: async (): Promise<UserContext> => (await call('GET', '/api/user')).body as unknown as UserContext,
  /** `remember`: "Keep me signed in" (sent only when the gateway offers it). */
  login: (email: string, password: string, remember?: boolean): Promise<Answer<LoginCode>> =>
    call('POST', '/api/login', remember === undefined ? { email, password } : { email, password, remember }),
  totp: (code: string): Promise<Answer<TotpCode>> => call('POST', '/api/totp', { code }),
  logout: (): Promise<Answer> => call('POST', '/api/logout', {}),
  account: (): Promise<Answer<AccountCode>> => call('GET', '/api/account'),
  revokeSessions: (target: { id: string } | { scope: 'others' | 'all' }): Promise<Answer<RevokeSessionsCode>> =>
    call('POST', '/api/account/sessions/revoke', target),
  signOutOfApp: (id: string): Promise<Answer<SignOutOfAppCode>> => call('POST', '/api/account/apps/revoke', { id }),
  tokens: (): Promise<Answer<ListTokensCode>> => call('GET', '/api/account/tokens'),
  createToken: (request: { name: string; apps?: readonly string[]; expiresInDays?: number }): Promise<Answer<CreateTokenCode>> =>
    call('POST', '/api/account/tokens', request),
  revokeToken: (id: string): Promise<Answer<RevokeTokenCode>> => call('POST', '/api/account/tokens/revoke', { id }),
  describeStepUp: (ref: string): Promise<Answer<DescribeStepUpCode>> => call('GET', `/api/step-up?ref=${encodeURIComponent(ref)}`),
  completeStepUp: (ref: string, proof: StepUpProof): Promise<Answer<CompleteStepUpCode>> => call('POST', '/api/step-up', { ref, ...proof }),
  oauthUrl: (provider: string, redirectUri: string | null): Promise<Answer> =>
    call('GET', `/api/oauth/url/${encodeURIComponent(provider)}${redirectUri ? `?redirect_uri=${encodeURIComponent(redirectUri)}` : ''}`),
};

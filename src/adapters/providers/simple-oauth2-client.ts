import type { AuthorizationCode } from 'simple-oauth2';
import { OAuthProviderError, type OAuthProviderFailure } from '../../application/ports/oauth-provider';

/** Longest answer read from a provider; anything bigger is junk for our purposes. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface OAuth2ClientOptions {
  /** The provider id, for error messages. */
  readonly provider: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly scopes: readonly string[];
  /** Bound on every call to the provider, milliseconds. */
  readonly timeoutMs: number;
  /** How the client authenticates at the token endpoint: HTTP Basic (RFC 6749's preference) or form fields. */
  readonly clientAuthentication?: 'header' | 'body';
  /** Extra headers for API calls (GitHub wants a User-Agent and its media type). */
  readonly apiHeaders?: Readonly<Record<string, string>>;
  /** Extra parameters of the authorization URL (Google's `hd` hint). */
  readonly authorizationParams?: Readonly<Record<string, string>>;
}

/**
 * What every provider adapter shares: the authorization-code exchange with PKCE through
 * simple-oauth2, and bounded JSON reads from the provider's API. Every failure becomes an
 * {@link OAuthProviderError}; no token or secret ever lands in an error message.
 */
export class SimpleOAuth2Client {
  private readonly client: AuthorizationCode;

  /**
   * `simpleOAuth2` is the library, handed in by composition (optional-modules.ts) only when a
   * provider is configured: simple-oauth2 and joi cost a gateway without OAuth several megabytes
   * of idle memory (see docs/benchmark.md).
   */
  constructor(
    private readonly options: OAuth2ClientOptions,
    simpleOAuth2: typeof import('simple-oauth2'),
  ) {
    const authorize = new URL(options.authorizeUrl);
    const token = new URL(options.tokenUrl);
    const { AuthorizationCode: Client } = simpleOAuth2;
    this.client = new Client({
      client: { id: options.clientId, secret: options.clientSecret },
      auth: {
        authorizeHost: authorize.origin,
        authorizePath: `${authorize.pathname}${authorize.search}`,
        tokenHost: token.origin,
        tokenPath: `${token.pathname}${token.search}`,
      },
      http: { timeout: options.timeoutMs, maxBytes: MAX_RESPONSE_BYTES, redirects: 0 },
      options: { authorizationMethod: options.clientAuthentication ?? 'header' },
    });
  }

  get provider(): string {
    return this.options.provider;
  }

  authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): string {
    return this.client.authorizeURL({
      redirect_uri: input.redirectUri,
      scope: [...this.options.scopes],
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
      ...this.options.authorizationParams,
    } as Parameters<AuthorizationCode['authorizeURL']>[0]);
  }

  /** Exchanges the code; resolves the access token. */
  async exchange(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<string> {
    return (await this.exchangeTokens(input)).accessToken;
  }

  /** {@link exchange}, with the ID token of the answer when it carried one (an OpenID Connect provider's). */
  async exchangeTokens(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<{ accessToken: string; idToken: string | null }> {
    let payload: unknown;
    try {
      const token = await this.client.getToken({
        code: input.code,
        redirect_uri: input.redirectUri,
        code_verifier: input.codeVerifier,
      } as unknown as Parameters<AuthorizationCode['getToken']>[0]);
      payload = token.token;
    } catch (e) {
      throw this.failure(exchangeFailure(e), e);
    }
    if (payload === null || typeof payload !== 'object') throw this.failure('invalid_response');
    const body = payload as Record<string, unknown>;
    // GitHub answers a bad code with 200 and an `error` field.
    if (typeof body.error === 'string') throw this.failure('refused');
    const accessToken = body.access_token;
    if (typeof accessToken !== 'string' || accessToken === '' || accessToken.length > 8192) throw this.failure('invalid_response');
    const idToken = typeof body.id_token === 'string' && body.id_token.length <= 16_384 ? body.id_token : null;
    return { accessToken, idToken };
  }

  /** GETs a JSON document from the provider's API with the access token. */
  async getJson(url: string, accessToken: string): Promise<unknown> {
    return fetchJson(this.options.provider, url, this.options.timeoutMs, { ...this.options.apiHeaders, authorization: `Bearer ${accessToken}` });
  }

  /**
   * Exchanges the code, then reads the person from the JSON object at `url` (an OpenID Connect
   * userinfo endpoint or alike) with the access token.
   */
  async userInfo(input: { code: string; codeVerifier: string; redirectUri: string }, url: string): Promise<Record<string, unknown>> {
    return (await this.userInfoAndIdToken(input, url)).info;
  }

  /** {@link userInfo}, with the ID token of the code's exchange when there was one. */
  async userInfoAndIdToken(
    input: { code: string; codeVerifier: string; redirectUri: string },
    url: string,
  ): Promise<{ info: Record<string, unknown>; idToken: string | null }> {
    const { accessToken, idToken } = await this.exchangeTokens(input);
    return { info: this.asObject(await this.getJson(url, accessToken)), idToken };
  }

  /** The JSON object a provider must answer with, or an invalid_response failure. */
  asObject(value: unknown): Record<string, unknown> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw this.failure('invalid_response');
    return value as Record<string, unknown>;
  }

  failure(reason: OAuthProviderFailure, cause?: unknown): OAuthProviderError {
    // The cause is kept for debugging but its message is never shown; it may quote a response body.
    return new OAuthProviderError(this.options.provider, reason, cause === undefined ? undefined : { cause });
  }
}

/**
 * GETs a JSON document with a bounded time and size, following no redirect. Rejects with an
 * {@link OAuthProviderError} only: `unreachable` (no answer, 5xx), `refused` (401, 403) or
 * `invalid_response`.
 */
export async function fetchJson(provider: string, url: string, timeoutMs: number, headers: Readonly<Record<string, string>> = {}): Promise<unknown> {
  const failure = (reason: OAuthProviderFailure, cause?: unknown) => new OAuthProviderError(provider, reason, cause === undefined ? undefined : { cause });
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json', ...headers }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw failure('unreachable', e);
  }
  let text: string;
  try {
    text = await readBounded(res);
  } catch (e) {
    throw failure(e instanceof TooLarge ? 'invalid_response' : 'unreachable', e);
  }
  if (res.status >= 500) throw failure('unreachable');
  if (res.status === 401 || res.status === 403) throw failure('refused');
  if (res.status !== 200) throw failure('invalid_response');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw failure('invalid_response');
  }
}

class TooLarge extends Error {}

async function readBounded(res: Response): Promise<string> {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new TooLarge('response too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Sorts a failed token request (a @hapi/boom error from Wreck) into refused, unreachable or junk. */
function exchangeFailure(e: unknown): OAuthProviderFailure {
  const data = (e as { data?: { res?: { statusCode?: number }; isResponseError?: boolean } } | null)?.data;
  const status = data?.res?.statusCode;
  if (status === undefined) {
    // No response at all: connection refused, DNS, or our timeout.
    return 'unreachable';
  }
  if (status >= 500) return 'unreachable';
  if (data?.isResponseError === true && (status === 400 || status === 401 || status === 403)) return 'refused';
  // A 2xx that is not JSON, a body too large, or an unexpected status: the provider answered junk.
  return 'invalid_response';
}

/** Reads a string field, '' when absent or not a string. */
export function stringField(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  return typeof v === 'string' ? v.slice(0, 1024) : '';
}

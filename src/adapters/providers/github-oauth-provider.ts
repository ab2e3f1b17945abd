import type { OAuthIdentity, OAuthProvider } from '../../application/ports/oauth-provider';
import { SimpleOAuth2Client, stringField } from './simple-oauth2-client';

export interface GitHubOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Web base, `https://github.com` or a GitHub Enterprise host. */
  readonly webUrl: string;
  /** API base, `https://api.github.com` or `https://<ghe-host>/api/v3`. */
  readonly apiUrl: string;
  readonly timeoutMs: number;
}

/**
 * GitHub (and GitHub Enterprise): the person is `/user`, their e-mail the primary, verified
 * entry of `/user/emails` (the profile e-mail may be unverified or hidden).
 */
export class GitHubOAuthProvider implements OAuthProvider {
  readonly id = 'github' as const;
  private readonly client: SimpleOAuth2Client;
  private readonly apiUrl: string;

  /** `simpleOAuth2`: the library, handed in by composition (optional-modules.ts). */
  constructor(options: GitHubOptions, simpleOAuth2: typeof import('simple-oauth2')) {
    const web = options.webUrl.replace(/\/+$/, '');
    this.apiUrl = options.apiUrl.replace(/\/+$/, '');
    this.client = new SimpleOAuth2Client(
      {
        provider: 'github',
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        authorizeUrl: `${web}/login/oauth/authorize`,
        tokenUrl: `${web}/login/oauth/access_token`,
        scopes: ['read:user', 'user:email'],
        timeoutMs: options.timeoutMs,
        clientAuthentication: 'body',
        apiHeaders: { accept: 'application/vnd.github+json', 'user-agent': 'portcullis', 'x-github-api-version': '2022-11-28' },
      },
      simpleOAuth2,
    );
  }

  authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): string {
    return this.client.authorizationUrl(input);
  }

  async identify(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<OAuthIdentity> {
    const token = await this.client.exchange(input);
    const [userRaw, emailsRaw] = await Promise.all([
      this.client.getJson(`${this.apiUrl}/user`, token),
      this.client.getJson(`${this.apiUrl}/user/emails`, token),
    ]);
    const user = this.client.asObject(userRaw);
    const login = stringField(user, 'login');
    if (login === '') throw this.client.failure('invalid_response');
    if (!Array.isArray(emailsRaw)) throw this.client.failure('invalid_response');
    const primary = emailsRaw.find(
      (e: unknown) =>
        e !== null && typeof e === 'object' && (e as Record<string, unknown>).primary === true && (e as Record<string, unknown>).verified === true,
    ) as Record<string, unknown> | undefined;
    return {
      email: primary === undefined ? '' : stringField(primary, 'email'),
      name: stringField(user, 'name'),
      username: login,
      groups: [],
    };
  }
}

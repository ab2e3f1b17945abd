import type { GitHubGroups } from '../../config/oauth';
import type { OAuthIdentity, OAuthProvider } from '../../application/ports/oauth-provider';
import type { IssuerExpectation } from '../../domain/oauth-flow';
import { SimpleOAuth2Client, stringField } from './simple-oauth2-client';

export interface GitHubOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Web base, `https://github.com` or a GitHub Enterprise host. */
  readonly webUrl: string;
  /** API base, `https://api.github.com` or `https://<ghe-host>/api/v3`. */
  readonly apiUrl: string;
  readonly timeoutMs: number;
  /**
   * Which memberships become groups: none, organisations (`org`), or organisations and teams
   * (`org`, `org:team`). Anything but `off` asks for the `read:org` scope.
   */
  readonly groups?: GitHubGroups;
}

export type { GitHubGroups };

/** One page of memberships is read (GitHub's maximum, 100 each); more than that is not a person we expect. */
const PER_PAGE = 100;

/**
 * GitHub (and GitHub Enterprise): the person is `/user`, their e-mail the primary, verified
 * entry of `/user/emails` (the profile e-mail may be unverified or hidden). With groups on,
 * `/user/orgs` and `/user/teams` give the organisations (`acme`) and teams (`acme:platform`,
 * by the team's slug) the person belongs to.
 */
export class GitHubOAuthProvider implements OAuthProvider {
  readonly id = 'github' as const;
  readonly kind = 'github' as const;
  readonly name = 'GitHub';
  private readonly client: SimpleOAuth2Client;
  private readonly apiUrl: string;
  private readonly groups: GitHubGroups;

  /** `simpleOAuth2`: the library, handed in by composition (optional-modules.ts). */
  constructor(options: GitHubOptions, simpleOAuth2: typeof import('simple-oauth2')) {
    this.groups = options.groups ?? 'off';
    const web = options.webUrl.replace(/\/+$/, '');
    this.apiUrl = options.apiUrl.replace(/\/+$/, '');
    this.client = new SimpleOAuth2Client(
      {
        provider: 'github',
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        authorizeUrl: `${web}/login/oauth/authorize`,
        tokenUrl: `${web}/login/oauth/access_token`,
        scopes: this.groups === 'off' ? ['read:user', 'user:email'] : ['read:user', 'user:email', 'read:org'],
        timeoutMs: options.timeoutMs,
        clientAuthentication: 'body',
        apiHeaders: { accept: 'application/vnd.github+json', 'user-agent': 'portcullis', 'x-github-api-version': '2022-11-28' },
      },
      simpleOAuth2,
    );
  }

  async authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): Promise<string> {
    return this.client.authorizationUrl(input);
  }

  /** GitHub publishes no issuer identifier for its OAuth apps, so an `iss` cannot be checked (RFC 9207 section 2.4). */
  async issuer(): Promise<IssuerExpectation> {
    return { issuer: null, required: false };
  }

  async identify(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<OAuthIdentity> {
    const token = await this.client.exchange(input);
    const [userRaw, emailsRaw, groups] = await Promise.all([
      this.client.getJson(`${this.apiUrl}/user`, token),
      this.client.getJson(`${this.apiUrl}/user/emails`, token),
      this.memberships(token),
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
      groups,
    };
  }

  private async memberships(token: string): Promise<string[]> {
    if (this.groups === 'off') return [];
    const [orgsRaw, teamsRaw] = await Promise.all([
      this.client.getJson(`${this.apiUrl}/user/orgs?per_page=${PER_PAGE}`, token),
      this.groups === 'teams' ? this.client.getJson(`${this.apiUrl}/user/teams?per_page=${PER_PAGE}`, token) : Promise.resolve([]),
    ]);
    if (!Array.isArray(orgsRaw) || !Array.isArray(teamsRaw)) throw this.client.failure('invalid_response');
    const orgs = orgsRaw.map((o: unknown) => (isObject(o) ? stringField(o, 'login') : '')).filter((o) => o !== '');
    const teams = teamsRaw
      .map((t: unknown) => {
        if (!isObject(t) || !isObject(t.organization)) return '';
        const org = stringField(t.organization, 'login');
        const slug = stringField(t, 'slug');
        return org === '' || slug === '' ? '' : `${org}:${slug}`;
      })
      .filter((t) => t !== '');
    return [...new Set([...orgs, ...teams])];
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

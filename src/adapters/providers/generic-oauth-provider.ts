import type { OAuthIdentity, OAuthProvider } from '../../application/ports/oauth-provider';
import { SimpleOAuth2Client, stringField } from './simple-oauth2-client';

export interface GenericOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authUrl: string;
  readonly tokenUrl: string;
  readonly userUrl: string;
  readonly scopes: readonly string[];
  readonly timeoutMs: number;
}

const MAX_GROUPS = 256;

/**
 * Any OAuth2/OIDC provider (Keycloak, Authentik, Pocket ID, Dex, Auth0, ...): the person is the
 * JSON at GENERIC_USER_URL with the claims `email`, `name`, `preferred_username` and `groups`
 * (an array, or one string of comma-separated names). An `email_verified: false` claim counts as
 * no e-mail: an address the provider has not checked must not pass the whitelist.
 */
export class GenericOAuthProvider implements OAuthProvider {
  readonly id = 'generic' as const;
  private readonly client: SimpleOAuth2Client;

  /** `simpleOAuth2`: the library, handed in by composition (optional-modules.ts). */
  constructor(
    private readonly options: GenericOptions,
    simpleOAuth2: typeof import('simple-oauth2'),
  ) {
    this.client = new SimpleOAuth2Client(
      {
        provider: 'generic',
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        authorizeUrl: options.authUrl,
        tokenUrl: options.tokenUrl,
        scopes: options.scopes,
        timeoutMs: options.timeoutMs,
      },
      simpleOAuth2,
    );
  }

  authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): string {
    return this.client.authorizationUrl(input);
  }

  async identify(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<OAuthIdentity> {
    const info = await this.client.userInfo(input, this.options.userUrl);
    const verified = info.email_verified !== false && info.email_verified !== 'false';
    return {
      email: verified ? stringField(info, 'email') : '',
      name: stringField(info, 'name'),
      username: stringField(info, 'preferred_username'),
      groups: groupsOf(info.groups),
    };
  }
}

function groupsOf(raw: unknown): string[] {
  const list = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw : [];
  return list
    .filter((g): g is string => typeof g === 'string')
    .map((g) => g.trim())
    .filter((g) => g !== '' && g.length <= 256)
    .slice(0, MAX_GROUPS);
}

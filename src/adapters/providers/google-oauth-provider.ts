import type { OAuthIdentity, OAuthProvider } from '../../application/ports/oauth-provider';
import type { IssuerExpectation } from '../../domain/oauth-flow';
import { SimpleOAuth2Client, stringField } from './simple-oauth2-client';

export interface GoogleOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authUrl: string;
  readonly tokenUrl: string;
  readonly userUrl: string;
  readonly timeoutMs: number;
  /**
   * Google Workspace domains the gateway admits (lower case). Sent as the `hd` hint (the one
   * domain, or `*` for several: "any Workspace account"); the hint only preselects accounts at
   * Google, the check of the `hd` claim happens in the login use case.
   */
  readonly hostedDomains?: readonly string[];
}

/** Google's issuer identifier, what its authorization responses name in `iss`. */
export const GOOGLE_ISSUER = 'https://accounts.google.com';

export const GOOGLE_DEFAULTS = {
  authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  userUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
} as const;

/** Google: the person is the OpenID Connect userinfo document; an address Google has not verified counts as none. */
export class GoogleOAuthProvider implements OAuthProvider {
  readonly id = 'google' as const;
  readonly kind = 'google' as const;
  readonly name = 'Google';
  private readonly client: SimpleOAuth2Client;

  /** `simpleOAuth2`: the library, handed in by composition (optional-modules.ts). */
  constructor(
    private readonly options: GoogleOptions,
    simpleOAuth2: typeof import('simple-oauth2'),
  ) {
    this.client = new SimpleOAuth2Client(
      {
        provider: 'google',
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        authorizeUrl: options.authUrl,
        tokenUrl: options.tokenUrl,
        scopes: ['openid', 'email', 'profile'],
        timeoutMs: options.timeoutMs,
        authorizationParams: hdHint(options.hostedDomains ?? []),
      },
      simpleOAuth2,
    );
  }

  async authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): Promise<string> {
    return this.client.authorizationUrl(input);
  }

  async issuer(): Promise<IssuerExpectation> {
    return { issuer: GOOGLE_ISSUER, required: false };
  }

  async identify(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<OAuthIdentity> {
    const info = await this.client.userInfo(input, this.options.userUrl);
    if (stringField(info, 'sub') === '') throw this.client.failure('invalid_response');
    const verified = info.email_verified === true || info.email_verified === 'true';
    return {
      email: verified ? stringField(info, 'email') : '',
      name: stringField(info, 'name'),
      username: '',
      groups: [],
      hostedDomain: stringField(info, 'hd'),
    };
  }
}

function hdHint(domains: readonly string[]): Record<string, string> {
  if (domains.length === 0) return {};
  return { hd: domains.length === 1 ? domains[0] : '*' };
}

import type { OAuthIdentity, OAuthProvider } from '../../application/ports/oauth-provider';
import { SimpleOAuth2Client, stringField } from './simple-oauth2-client';

export interface GoogleOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authUrl: string;
  readonly tokenUrl: string;
  readonly userUrl: string;
  readonly timeoutMs: number;
}

export const GOOGLE_DEFAULTS = {
  authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  userUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
} as const;

/** Google: the person is the OpenID Connect userinfo document; an address Google has not verified counts as none. */
export class GoogleOAuthProvider implements OAuthProvider {
  readonly id = 'google' as const;
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
      },
      simpleOAuth2,
    );
  }

  authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): string {
    return this.client.authorizationUrl(input);
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
    };
  }
}

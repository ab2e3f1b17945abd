import { OAuthProviderError, type OAuthIdentity, type OAuthProvider } from '../../application/ports/oauth-provider';
import type { IssuerExpectation } from '../../domain/oauth-flow';
import { fetchJson, SimpleOAuth2Client, stringField } from './simple-oauth2-client';

export interface GenericOptions {
  /** `generic` for the `GENERIC_*` provider, else the id of `OAUTH_PROVIDERS_<ID>_…`. */
  readonly id?: string;
  /** How the login page names it. */
  readonly name?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Endpoints; each one left out is read from the issuer's OpenID Connect discovery document. */
  readonly authUrl?: string;
  readonly tokenUrl?: string;
  readonly userUrl?: string;
  /** The issuer identifier: enables discovery and the RFC 9207 `iss` check. */
  readonly issuer?: string;
  readonly scopes: readonly string[];
  readonly timeoutMs: number;
}

const MAX_GROUPS = 256;

interface Resolved {
  readonly client: SimpleOAuth2Client;
  readonly userUrl: string;
  readonly issuer: IssuerExpectation;
}

/**
 * Any OAuth2/OIDC provider (Keycloak, Authentik, Pocket ID, Dex, Auth0, ...): the person is the
 * JSON at the userinfo URL with the claims `email`, `name`, `preferred_username` and `groups`
 * (an array, or one string of comma-separated names). An `email_verified: false` claim counts as
 * no e-mail: an address the provider has not checked must not pass the whitelist.
 *
 * With an issuer, the endpoints not given are read once from its discovery document (retried on
 * the next login when that fails), and the issuer is what the `iss` response parameter must say.
 */
export class GenericOAuthProvider implements OAuthProvider {
  readonly kind = 'generic' as const;
  readonly id: string;
  readonly name: string;
  private resolved: Promise<Resolved> | null = null;

  /** `simpleOAuth2`: the library, handed in by composition (optional-modules.ts). */
  constructor(
    private readonly options: GenericOptions,
    private readonly simpleOAuth2: typeof import('simple-oauth2'),
  ) {
    this.id = options.id ?? 'generic';
    this.name = options.name ?? 'Generic';
    if (options.issuer === undefined) {
      if (options.authUrl === undefined || options.tokenUrl === undefined || options.userUrl === undefined)
        throw new Error(`generic provider ${this.id}: endpoints or an issuer are required`);
      this.resolved = Promise.resolve(this.build(options.authUrl, options.tokenUrl, options.userUrl, { issuer: null, required: false }));
    }
  }

  async authorizationUrl(input: { state: string; codeChallenge: string; redirectUri: string }): Promise<string> {
    return (await this.resolve()).client.authorizationUrl(input);
  }

  async issuer(): Promise<IssuerExpectation> {
    return (await this.resolve()).issuer;
  }

  async identify(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<OAuthIdentity> {
    const { client, userUrl } = await this.resolve();
    const { info, idToken } = await client.userInfoAndIdToken(input, userUrl);
    const verified = info.email_verified !== false && info.email_verified !== 'false';
    const upstream = idToken === null ? null : this.upstreamOf(idToken);
    return {
      email: verified ? stringField(info, 'email') : '',
      name: stringField(info, 'name'),
      username: stringField(info, 'preferred_username'),
      groups: groupsOf(info.groups),
      ...(upstream === null ? {} : { upstream }),
    };
  }

  /**
   * The `sub` and `sid` of the ID token the token endpoint answered (over the TLS connection the
   * client opened, which OpenID Connect Core 3.1.3.7 accepts in place of its signature), when it is
   * for this client from the configured issuer; null otherwise. Only used to match the provider's
   * later back-channel logout, which is verified in full.
   */
  private upstreamOf(idToken: string): { sub: string; sid: string | null } | null {
    const issuer = this.options.issuer;
    if (issuer === undefined) return null;
    let claims: Record<string, unknown>;
    try {
      claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return null;
    }
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (claims === null || claims.iss !== issuer || !aud.includes(this.options.clientId)) return null;
    const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' && v.length <= 1024 ? v : null);
    const sub = text(claims.sub);
    return sub === null ? null : { sub, sid: text(claims.sid) };
  }

  private resolve(): Promise<Resolved> {
    if (this.resolved === null) {
      const attempt = this.discover();
      this.resolved = attempt;
      // A provider that is down at the first login is asked again at the next one.
      attempt.catch(() => {
        if (this.resolved === attempt) this.resolved = null;
      });
    }
    return this.resolved;
  }

  /** OpenID Connect Discovery 1.0, section 4: the document must name exactly the configured issuer. */
  private async discover(): Promise<Resolved> {
    const issuer = this.options.issuer as string;
    const doc = await fetchJson(this.id, `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, this.options.timeoutMs);
    const invalid = () => new OAuthProviderError(this.id, 'invalid_response');
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw invalid();
    const meta = doc as Record<string, unknown>;
    if (meta.issuer !== issuer) throw invalid();
    const endpoint = (given: string | undefined, field: string): string => {
      if (given !== undefined) return given;
      const value = meta[field];
      if (typeof value !== 'string' || !isHttpUrl(value)) throw invalid();
      return value;
    };
    return this.build(
      endpoint(this.options.authUrl, 'authorization_endpoint'),
      endpoint(this.options.tokenUrl, 'token_endpoint'),
      endpoint(this.options.userUrl, 'userinfo_endpoint'),
      {
        issuer,
        required: meta.authorization_response_iss_parameter_supported === true,
      },
    );
  }

  private build(authUrl: string, tokenUrl: string, userUrl: string, issuer: IssuerExpectation): Resolved {
    const client = new SimpleOAuth2Client(
      {
        provider: this.id,
        clientId: this.options.clientId,
        clientSecret: this.options.clientSecret,
        authorizeUrl: authUrl,
        tokenUrl,
        scopes: this.options.scopes,
        timeoutMs: this.options.timeoutMs,
      },
      this.simpleOAuth2,
    );
    return { client, userUrl, issuer };
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
  } catch {
    return false;
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

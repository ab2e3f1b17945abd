import { CookieJar } from './oidc';

/** A browser as the gateway sees it: its own cookie jar, HTML-accepting by default. */
export class GatewayBrowser {
  readonly jar = new CookieJar();

  constructor(private readonly gatewayUrl: string) {}

  /** Asks the gateway for the provider URL; resolves the parsed URL and the raw response. */
  async start(provider: string, redirectUri?: string): Promise<{ res: Response; url: URL | null }> {
    const query = redirectUri === undefined ? '' : `?redirect_uri=${encodeURIComponent(redirectUri)}`;
    const res = await fetch(`${this.gatewayUrl}/api/oauth/url/${provider}${query}`, { headers: { cookie: this.jar.header(), accept: 'application/json' } });
    this.jar.store(res);
    const body = (await res.json()) as { url?: string };
    return { res, url: typeof body.url === 'string' ? new URL(body.url) : null };
  }

  /** Follows a provider redirect to the gateway's callback (same path and query, on the test address). */
  async callback(callbackUrl: URL | string, mode: 'browser' | 'api' = 'browser'): Promise<Response> {
    const u = typeof callbackUrl === 'string' ? new URL(callbackUrl) : callbackUrl;
    const res = await fetch(`${this.gatewayUrl}${u.pathname}${u.search}`, {
      redirect: 'manual',
      headers: { cookie: this.jar.header(), accept: mode === 'browser' ? 'text/html,application/xhtml+xml' : 'application/json' },
    });
    this.jar.store(res);
    return res;
  }

  async user(): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.gatewayUrl}/api/user`, { headers: { cookie: this.jar.header() } });
    return (await res.json()) as Record<string, unknown>;
  }

  flowCookies(): string[] {
    return this.jar.names().filter((n) => n.startsWith('portcullis-oauth-'));
  }
}

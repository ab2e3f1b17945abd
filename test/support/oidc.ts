import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface OidcClient {
  readonly client_id: string;
  readonly client_secret: string;
  readonly redirect_uris: readonly string[];
  readonly backchannel_logout_uri?: string;
  readonly backchannel_logout_session_required?: boolean;
}

export interface OidcServer {
  readonly issuer: string;
  /** Stops the process; resolves once it has exited. */
  close(): Promise<void>;
}

/** Starts test/support/oidc-server.mjs (a real oidc-provider) on a free 127.0.0.1 port. */
export async function startOidcServer(config: {
  clients: OidcClient[];
  accounts: Record<string, Record<string, unknown>>;
  /** Private JWKs the provider signs with (default: its own development key). */
  jwks?: { keys: Record<string, unknown>[] };
  /** Back-channel logout on: `sid` in the ID tokens of clients registered for it. */
  backchannel?: boolean;
}): Promise<OidcServer> {
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'oidc-server.mjs')], {
    env: { ...process.env, OIDC_TEST_CONFIG: JSON.stringify(config), NODE_OPTIONS: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const issuer = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error(`oidc server did not start: ${stderr}`)), 15_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { issuer: string }).issuer);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`oidc server exited with ${code}: ${stderr}`));
    });
  });
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A minimal cookie jar for one browser talking to one provider (paths ignored; names are unique enough there). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const expired = attrs.some((a) => /^max-age=0$/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  names(): string[] {
    return [...this.cookies.keys()];
  }

  delete(name: string): void {
    this.cookies.delete(name);
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }
}

/**
 * Plays a person at the provider: opens the authorization URL, logs in as `login` through the
 * provider's own interaction form, and follows the provider's redirects until it sends the
 * browser to `redirectPrefix`. Resolves that final URL (the gateway callback with code and state).
 */
export async function loginAtProvider(authorizationUrl: string, login: string, redirectPrefix: string): Promise<URL> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  let posted = false;
  for (let hop = 0; hop < 10; hop += 1) {
    if (url.startsWith(redirectPrefix)) return new URL(url);
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(), accept: 'text/html' } });
    jar.store(res);
    const location = res.headers.get('location');
    if (location !== null) {
      url = new URL(location, url).toString();
      continue;
    }
    const page = await res.text();
    if (res.status !== 200 || posted || !/\/interaction\//.test(url))
      throw new Error(`unexpected provider answer ${res.status} at ${url}: ${page.slice(0, 300)}`);
    const form = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString(),
    });
    jar.store(form);
    posted = true;
    const next = form.headers.get('location');
    if (next === null) throw new Error(`login form answered ${form.status}: ${(await form.text()).slice(0, 300)}`);
    url = new URL(next, url).toString();
  }
  throw new Error('too many redirects at the provider');
}

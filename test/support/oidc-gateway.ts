import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as client from 'openid-client';
import { loadConfig } from '../../src/composition/config';
import type { Overrides } from '../../src/composition/container';
import { createGateway } from '../../src/composition/gateway';
import { TEST_SECRET, cachedHashOf, TOTP_SECRET } from './credentials';
import { tempDataDir } from './data-dir';
import { SESSION_COOKIE, totpCode } from './http';
import { freePort } from './net';
import type { RunningGateway } from './server';

/** The people of the OpenID Connect contract tests (a users file: names, e-mails, groups, TOTP). */
export const OIDC_PEOPLE = {
  alice: { password: 'alice-pw', email: 'alice@example.test', name: 'Alice Liddell', groups: ['admins', 'staff'] },
  bob: { password: 'bob-pw', email: 'bob@example.test', name: 'Bob Builder', groups: ['staff'] },
  carol: { password: 'carol-pw', email: 'carol@example.test', name: 'Carol Danvers', groups: [] as string[], totp: TOTP_SECRET },
};

/** A confidential client's secret in the tests (at least 32 characters). */
export const APP_SECRET = 'app-secret-0123456789-0123456789-abcdef';

/** The relying party the contract tests play, and its registered callback. */
export const RP = 'https://rp.example.test';
export const CALLBACK = `${RP}/callback`;

/** The confidential client `app` of {@link RP}: id, secret, callback and the page after logout. */
export const APP_CLIENT_ENV: Record<string, string> = {
  OIDC_CLIENTS_APP_CLIENT_ID: 'app',
  OIDC_CLIENTS_APP_CLIENT_SECRET: APP_SECRET,
  OIDC_CLIENTS_APP_REDIRECT_URIS: CALLBACK,
  OIDC_CLIENTS_APP_POST_LOGOUT_REDIRECT_URIS: `${RP}/logged-out`,
};

/**
 * Writes the users file of {@link OIDC_PEOPLE} (with `changes` to some of them) as `users.yml` in
 * `dir`; the running gateway notices a rewrite within a moment. Resolves its path.
 */
export function writeOidcPeople(dir: string, changes: Partial<Record<keyof typeof OIDC_PEOPLE, { groups?: string[]; password?: string }>> = {}): string {
  const usersFile = join(dir, 'users.yml');
  writeFileSync(
    usersFile,
    'users:\n' +
      Object.entries(OIDC_PEOPLE)
        .map(([username, person]) => {
          const p = { ...person, ...changes[username as keyof typeof OIDC_PEOPLE] };
          return (
            `  - username: ${username}\n    password: "${cachedHashOf(p.password)}"\n    email: ${p.email}\n    name: ${p.name}\n    groups: [${p.groups.join(', ')}]\n` +
            ('totp' in p ? `    totp_secret: ${p.totp}\n` : '')
          );
        })
        .join(''),
  );
  return usersFile;
}

/**
 * Starts the real gateway on 127.0.0.1 with APP_URL = its own address (issuer = APP_URL exactly, so
 * a relying-party library can discover it), a users file of {@link OIDC_PEOPLE} and `env` on top.
 */
export async function startOidcGateway(env: Record<string, string> = {}, overrides: Overrides = {}): Promise<RunningGateway & { dir: string }> {
  const port = await freePort();
  const temp = tempDataDir('portcullis-oidc');
  const dir = temp.dir;
  const usersFile = writeOidcPeople(dir);
  const url = `http://127.0.0.1:${port}`;
  const loaded = loadConfig({
    env: { APP_URL: url, SECRET: TEST_SECRET, LOG_LEVEL: 'silent', ADDRESS: '127.0.0.1', PORT: String(port), USERS_FILE: usersFile, ...env },
  });
  if (!loaded.ok) throw new Error(`test config invalid: ${loaded.problems.join('; ')}`);
  const gateway = createGateway(loaded.config, overrides);
  const { server } = await gateway.listen(port, '127.0.0.1');
  return {
    url,
    dir,
    gateway,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.shutdown();
      temp.remove();
    },
  };
}

/** One gateway for a describe block: see {@link useOidcGateway}. */
export interface OidcSuite {
  /** The running gateway (its `url` is the issuer). */
  readonly gw: RunningGateway & { dir: string };
  /** The confidential client `app` ({@link APP_CLIENT_ENV}) as a relying party library finds it. */
  readonly app: client.Configuration;
  /** Another registered client, found by discovery when the gateway started (see `clients`). */
  client(id: string): client.Configuration;
}

/**
 * Starts {@link startOidcGateway} for the describe block it is called in (before its first test,
 * closed after its last) with the client `app` and `env` on top, and discovers `app` and the other
 * `clients` (id → secret, `null` for a public client). The first request loads oidc-provider (and,
 * under Jest, transforms it): the file's tests get a minute for that.
 */
export function useOidcGateway(
  env: Record<string, string> = {},
  options: { clients?: Readonly<Record<string, string | null>>; overrides?: Overrides } = {},
): OidcSuite {
  jest.setTimeout(60_000);
  let gw: (RunningGateway & { dir: string }) | undefined;
  const found = new Map<string, client.Configuration>();
  beforeAll(async () => {
    gw = await startOidcGateway({ ...APP_CLIENT_ENV, ...env }, options.overrides);
    const running = gw;
    const clients: [string, string | null][] = [['app', APP_SECRET], ...Object.entries(options.clients ?? {})];
    for (const [id, secret] of clients) found.set(id, await discoverClient(running.url, id, secret ?? undefined));
  });
  afterAll(() => gw?.close());
  const clientOf = (id: string): client.Configuration => {
    const config = found.get(id);
    if (config === undefined) throw new Error(`no client ${id} was discovered`);
    return config;
  };
  return {
    get gw() {
      if (gw === undefined) throw new Error('the gateway has not started');
      return gw;
    },
    get app() {
      return clientOf('app');
    },
    client: clientOf,
  };
}

/** One browser: cookies by name (the gateway's and the provider's), following redirects by hand. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly origin: string) {}

  header(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  private store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || attrs.some((a) => /^max-age=0$/i.test(a) || /^expires=thu, 01 jan 1970/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** One request to the gateway with this browser's cookies; no redirect followed. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: this.header() } });
    this.store(res);
    return res;
  }

  /** The password step of the login page (`/api/login`): the answer as it comes, a TOTP code perhaps still owed. */
  passwordStep(username: string, password: string): Promise<Response> {
    return this.fetch(`${this.origin}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
  }

  /** The TOTP step of the login page (`/api/totp`) with `code`. */
  totpStep(code: string): Promise<Response> {
    return this.fetch(`${this.origin}/api/totp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  }

  /**
   * A step-up as the login page completes it (`POST /api/step-up`) for the `step_up` reference of
   * the URL it was sent to; resolves the answer's status and where it goes back to.
   */
  async stepUp(reference: string, proof: Record<string, unknown>): Promise<{ status: number; redirect: string | null }> {
    const res = await this.fetch(`${this.origin}/api/step-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ref: reference, ...proof }),
    });
    const body = (await res.json()) as { redirect?: string | null };
    return { status: res.status, redirect: body.redirect ?? null };
  }

  /** Logs in through the gateway's API as its login page does (password, then the TOTP code when owed). */
  async login(username: string, password: string, totpCode?: () => Promise<string>): Promise<void> {
    const res = await this.passwordStep(username, password);
    if (res.status !== 200) throw new Error(`login as ${username} answered ${res.status}`);
    if (totpCode !== undefined) {
      const totp = await this.totpStep(await totpCode());
      if (totp.status !== 200) throw new Error(`totp for ${username} answered ${totp.status}`);
    }
    if (this.cookies.get(SESSION_COOKIE) === undefined) throw new Error('no session cookie');
  }

  /**
   * Follows redirects from `url` until one leaves the gateway (the relying party's redirect URI)
   * or lands on a page; resolves the last URL and response.
   */
  async follow(url: string, max = 10): Promise<{ url: URL; res: Response | null }> {
    let current = new URL(url);
    for (let hop = 0; hop < max; hop += 1) {
      if (current.origin !== this.origin) return { url: current, res: null };
      const res = await this.fetch(current.toString());
      const location = res.headers.get('location');
      if (location === null || res.status < 300 || res.status >= 400) return { url: current, res };
      current = new URL(location, current);
    }
    throw new Error('too many redirects');
  }
}

/**
 * A relying party of the gateway at `origin`, found by discovery (plain http on loopback allowed);
 * a public client when there is no secret, else one sending its secret as it is registered by
 * default (client_secret_basic: the gateway refuses it any other way).
 */
export function discoverClient(origin: string, clientId: string, secret?: string): Promise<client.Configuration> {
  return client.discovery(new URL(origin), clientId, secret, secret === undefined ? client.None() : client.ClientSecretBasic(secret), {
    execute: [client.allowInsecureRequests],
  });
}

/** The start of a code flow with PKCE (S256) and a random state; `params` add to or override the request. */
export async function pkceAuthorization(
  config: client.Configuration,
  redirectUri: string,
  params: Record<string, string> = {},
): Promise<{ url: URL; verifier: string; state: string }> {
  const verifier = client.randomPKCECodeVerifier();
  const request: Record<string, string> = {
    redirect_uri: redirectUri,
    scope: 'openid email profile groups',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: client.randomState(),
    ...params,
  };
  return { url: client.buildAuthorizationUrl(config, request), verifier, state: request.state };
}

/**
 * A logged-in browser's authorization with PKCE, followed until the browser is back at `redirectUri`
 * (it fails when it lands anywhere else, the login page say): the callback URL and what redeems it.
 */
export async function authorize(
  browser: Browser,
  config: client.Configuration,
  redirectUri = CALLBACK,
  params: Record<string, string> = {},
): Promise<{ callback: URL; verifier: string; state: string }> {
  const { url, verifier, state } = await pkceAuthorization(config, redirectUri, params);
  const done = await browser.follow(url.toString());
  expect(done.url.toString().startsWith(`${redirectUri}?`)).toBe(true);
  return { callback: done.url, verifier, state };
}

/** A logged-in browser's whole code flow ({@link authorize}, then the code redeemed as the relying party does): the tokens. */
export async function codeFlow(browser: Browser, config: client.Configuration, redirectUri = CALLBACK, params: Record<string, string> = {}) {
  const { callback, verifier, state } = await authorize(browser, config, redirectUri, params);
  return client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
}

/** A browser logged in to the gateway at `origin` as one of {@link OIDC_PEOPLE} (with a TOTP code for the one who has a second factor). */
export async function loggedInBrowser(origin: string, name: keyof typeof OIDC_PEOPLE = 'alice'): Promise<Browser> {
  const browser = new Browser(origin);
  const person = OIDC_PEOPLE[name];
  await browser.login(name, person.password, 'totp' in person ? () => totpCode() : undefined);
  return browser;
}

/** A request to the token endpoint of `config` as client `clientId` (HTTP Basic with `secret`), with `form` as its body. */
export function tokenRequest(config: client.Configuration, clientId: string, secret: string, form: Record<string, string>): Promise<Response> {
  return fetch(config.serverMetadata().token_endpoint as string, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
    body: new URLSearchParams(form).toString(),
  });
}

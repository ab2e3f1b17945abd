import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSecret } from 'otplib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startOidcServer } from '../../support/oidc';
import { TEST_SECRET, usersEntry } from '../../support/credentials';
import { freePort } from '../../support/net';
import { startGatewayProcess, waitForHttp, type Child } from '../../support/process';
import { startCaddy, startNginx } from './proxies';
import { startEchoApp } from './upstream';

export type ProxyName = 'nginx' | 'caddy';

export interface Account {
  readonly username: string;
  readonly password: string;
  readonly totpSecret?: string;
}

export interface Site {
  readonly proxy: ProxyName;
  /** Host name of the protected application behind this proxy. */
  readonly host: string;
  readonly port: number;
  /** `http://<host>:<port>`, reachable from the browser. */
  readonly url: string;
}

export interface StackOptions {
  readonly proxies: readonly ProxyName[];
  /** Accounts for USERS; a TOTP secret is made for those asked `{ totp: true }`. */
  readonly accounts: readonly { readonly username: string; readonly totp?: boolean }[];
  /** Extra gateway environment (APP_TITLE, DISABLE_CONTINUE, ...). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Runs a real OpenID Connect server (oidc-provider, test/support/oidc-server.mjs) with these
   * accounts (login → claims) and configures it as the gateway's generic provider, "Example SSO".
   */
  readonly oidcAccounts?: Readonly<Record<string, Record<string, unknown>>>;
  /**
   * Further OpenID Connect servers, one per entry, each configured as an `OAUTH_PROVIDERS_<ID>_…`
   * provider found by discovery (`ISSUER`), with its name and whitelist.
   */
  /** Extra Chromium flags, given the gateway's URL (passkeys need `--unsafely-treat-insecure-origin-as-secure`). */
  readonly chromiumArgs?: (gatewayUrl: string) => readonly string[];
  readonly moreProviders?: readonly {
    readonly id: string;
    readonly name: string;
    readonly whitelist: string;
    readonly accounts: Readonly<Record<string, Record<string, unknown>>>;
  }[];
}

export const GENERIC_NAME = 'Example SSO';

export interface Stack {
  /** `http://auth.example.test:<port>`: the gateway's APP_URL. */
  readonly gatewayUrl: string;
  readonly gatewayPort: number;
  /** `http://127.0.0.1:<port>`: the gateway's own forward-auth listener (FORWARD_AUTH_PORT), as a proxy asks it. */
  readonly forwardAuthUrl: string;
  /** `http://echo.example.test:<port>`: the echo app without any proxy (a valid continue target). */
  readonly echoUrl: string;
  /** The OIDC server's issuer URL (`http://127.0.0.1:<port>`), when one runs. */
  readonly oidcIssuer: string | null;
  /** The issuers of `moreProviders`, by provider id. */
  readonly issuers: Readonly<Record<string, string>>;
  readonly sites: Readonly<Partial<Record<ProxyName, Site>>>;
  readonly accounts: Readonly<Record<string, Account>>;
  readonly browser: Browser;
  readonly dir: string;
  /** A fresh browser context (its own cookies) and page; `problems` collects console errors and page errors. */
  newPage(options?: {
    colorScheme?: 'light' | 'dark';
    width?: number;
    height?: number;
    /** The browser's language (`navigator.languages`, `Accept-Language`); en-US unless given. */
    locale?: string;
  }): Promise<{ context: BrowserContext; page: Page; problems: string[] }>;
  stop(): Promise<void>;
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--host-resolver-rules=MAP *.example.test 127.0.0.1',
];

/**
 * Console errors that are expected here: Chromium logs every 4xx answer (wrong password, lockout,
 * the not-found page), and ignores Cross-Origin-Opener-Policy on plain-http test origins.
 */
const EXPECTED_CONSOLE_ERRORS = [/responded with a status of (401|403|404|429)\b/, /Cross-Origin-Opener-Policy header has been ignored/];

/**
 * Starts the built gateway (`dist/src/main.js`, as `npm start` runs it), the echo app, the asked
 * proxies in front of it, and headless Chromium, all on free loopback ports, with config, pid and
 * log files in a throwaway directory. Host names end in `.example.test`, which Chromium maps to
 * 127.0.0.1, so the cookie domain `example.test` works as in production.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-e2e-'));
  const children: Child[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    for (const child of children.reverse()) await child.stop();
    if (process.env.E2E_KEEP_DIR === undefined) rmSync(dir, { recursive: true, force: true });
  };

  try {
    const accounts: Record<string, Account> = {};
    for (const a of options.accounts) {
      accounts[a.username] = { username: a.username, password: `${a.username}-Pa55word!`, ...(a.totp ? { totpSecret: generateSecret() } : {}) };
    }
    const users = Object.values(accounts)
      .map((a) => usersEntry(a.username, a.password, a.totpSecret))
      .join(',');

    const echo = await startEchoApp();
    cleanups.push(() => echo.close());

    const gatewayPort = await freePort();
    // Forward auth on its own listener, as the shipped proxy examples expect it.
    const forwardAuthPort = await freePort();
    const gatewayUrl = `http://auth.example.test:${gatewayPort}`;

    let oidcIssuer: string | null = null;
    const oauthEnv: Record<string, string> = {};
    if (options.oidcAccounts !== undefined) {
      const client = {
        client_id: 'portcullis-e2e',
        client_secret: 'e2e-client-secret-not-a-secret',
        redirect_uris: [`${gatewayUrl}/api/oauth/callback/generic`],
      };
      const oidc = await startOidcServer({ clients: [client], accounts: { ...options.oidcAccounts } });
      cleanups.push(() => oidc.close());
      oidcIssuer = oidc.issuer;
      Object.assign(oauthEnv, {
        GENERIC_CLIENT_ID: client.client_id,
        GENERIC_CLIENT_SECRET: client.client_secret,
        GENERIC_AUTH_URL: `${oidc.issuer}/auth`,
        GENERIC_TOKEN_URL: `${oidc.issuer}/token`,
        GENERIC_USER_URL: `${oidc.issuer}/me`,
        GENERIC_SCOPES: 'openid email profile groups',
        GENERIC_NAME,
        OAUTH_WHITELIST: '*@example.test',
      });
    }
    const issuers: Record<string, string> = {};
    for (const more of options.moreProviders ?? []) {
      const client = {
        client_id: `portcullis-${more.id}`,
        client_secret: `${more.id}-client-secret-not-a-secret`,
        redirect_uris: [`${gatewayUrl}/api/oauth/callback/${more.id}`],
      };
      const oidc = await startOidcServer({ clients: [client], accounts: { ...more.accounts } });
      cleanups.push(() => oidc.close());
      issuers[more.id] = oidc.issuer;
      const key = `OAUTH_PROVIDERS_${more.id.toUpperCase().replace(/-/g, '_')}`;
      Object.assign(oauthEnv, {
        [`${key}_CLIENT_ID`]: client.client_id,
        [`${key}_CLIENT_SECRET`]: client.client_secret,
        [`${key}_ISSUER`]: oidc.issuer,
        [`${key}_NAME`]: more.name,
        [`${key}_WHITELIST`]: more.whitelist,
      });
    }
    const gateway = startGatewayProcess(
      {
        PORT: String(gatewayPort),
        FORWARD_AUTH_PORT: String(forwardAuthPort),
        APP_URL: gatewayUrl,
        SECRET: TEST_SECRET,
        USERS: users,
        LOG_LEVEL: 'warn',
        // Its database in the stack's temp dir, never ./data of the checkout.
        DATA_DIR: join(dir, 'data'),
        ...oauthEnv,
        ...options.env,
      },
      { logFile: join(dir, 'gateway.log') },
    );
    children.push(gateway);
    await waitForHttp(gateway, gatewayPort, `auth.example.test:${gatewayPort}`);

    const sites: Partial<Record<ProxyName, Site>> = {};
    for (const proxy of options.proxies) {
      const port = await freePort();
      const host = `app-${proxy}.example.test`;
      const layout = { port, authHost: 'auth.example.test', gatewayPort, forwardAuthPort, apps: [{ host, upstreamPort: echo.port }] };
      children.push(proxy === 'nginx' ? await startNginx(join(dir, 'nginx'), layout) : await startCaddy(join(dir, 'caddy'), layout));
      sites[proxy] = { proxy, host, port, url: `http://${host}:${port}` };
    }

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: [...CHROMIUM_ARGS, ...(options.chromiumArgs?.(gatewayUrl) ?? [])],
    });
    cleanups.push(() => browser.close());

    return {
      gatewayUrl,
      gatewayPort,
      forwardAuthUrl: `http://127.0.0.1:${forwardAuthPort}`,
      echoUrl: `http://echo.example.test:${echo.port}`,
      oidcIssuer,
      issuers,
      sites,
      accounts,
      browser,
      dir,
      async newPage(opts = {}) {
        const context = await browser.newContext({
          colorScheme: opts.colorScheme ?? 'light',
          viewport: { width: opts.width ?? 1024, height: opts.height ?? 720 },
          deviceScaleFactor: 1,
          locale: opts.locale ?? 'en-US',
        });
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error' && !EXPECTED_CONSOLE_ERRORS.some((re) => re.test(m.text()))) problems.push(m.text());
        });
        page.on('pageerror', (e) => problems.push(e.message));
        return { context, page, problems };
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from '../application/ports/password-hasher';
import { caddyFirstApp, FIRST_APP, nginxFirstApp, PROXIES_DOC } from '../adapters/http/first-app';
import type { Config } from '../config/load';
import { DEMO_USERNAME, demoForwardAuth } from '../composition/demo';

/** Adds the throwaway demo account (random password) to a demo configuration. */
export async function withDemoAccount(config: Config, hasher: PasswordHasher): Promise<{ config: Config; password: string }> {
  const password = randomBytes(12).toString('base64url');
  const hash = await hasher.hash(password);
  return { config: { ...config, users: [{ username: DEMO_USERNAME, hash }] }, password };
}

const indent = (text: string): string[] => text.split('\n').map((line) => `     ${line.replace(/\t/g, '    ')}`);

export function demoBanner(config: Config, password: string, dataDir: string | null = null): string {
  const line = '!'.repeat(72);
  const forwardAuth = demoForwardAuth(config);
  return [
    line,
    '!! DEMO MODE: nothing is configured, so Portcullis made a throwaway setup.',
    '!! The secret is random and the account below vanishes on restart.',
    '!! Do not protect anything real with it: set APP_URL, SECRET and USERS.',
    ...(dataDir === null ? [] : [`!! State (logouts, locks) is kept in a throwaway directory, removed on exit: ${dataDir}`]),
    line,
    `   Open ${config.appUrl}/login`,
    `   username: ${DEMO_USERNAME}`,
    `   password: ${password}`,
    line,
    `   Next: protect your first app. Say it runs on ${FIRST_APP.upstream}; put it behind`,
    `   a proxy on ${FIRST_APP.url}, open that and log in (more: ${PROXIES_DOC}).`,
    '   nginx (inside the http block, e.g. /etc/nginx/conf.d/portcullis-demo.conf):',
    ...indent(nginxFirstApp(forwardAuth)),
    '   caddy (a Caddyfile; `caddy run --config Caddyfile`):',
    ...indent(caddyFirstApp(forwardAuth)),
    line,
  ].join('\n');
}

import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from '../application/ports/password-hasher';
import type { Config } from './config';

export const DEMO_USERNAME = 'demo';

/** Adds the throwaway demo account (random password) to a demo configuration. */
export async function withDemoAccount(config: Config, hasher: PasswordHasher): Promise<{ config: Config; password: string }> {
  const password = randomBytes(12).toString('base64url');
  const hash = await hasher.hash(password);
  return { config: { ...config, users: [{ username: DEMO_USERNAME, hash }] }, password };
}

export function demoBanner(config: Config, password: string, dataDir: string | null = null): string {
  const line = '!'.repeat(72);
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
  ].join('\n');
}

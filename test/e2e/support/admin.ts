import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashOf, TOTP_SECRET } from '../../support/credentials';
import { submitPassword, totpCode } from './flows';
import type { Account, Stack } from './stack';

/** The administrator of the admin console's suites: in the group `admins`, with TOTP (a second factor to step up with). */
export const BOSS: Account = { username: 'boss', password: 'boss-password', totpSecret: TOTP_SECRET };

/** The YAML users file's entry for {@link BOSS}, as its lines (a suite adds its own people after it). */
export function bossEntry(): string[] {
  return ['  - username: boss', `    password: "${hashOf(BOSS.password)}"`, '    groups: [admins]', `    totp_secret: ${TOTP_SECRET}`];
}

/** Writes `users.yaml` in `dir` with {@link BOSS} alone, and gives its path. */
export function bossUsersFile(dir: string): string {
  const path = join(dir, 'users.yaml');
  writeFileSync(path, ['users:', ...bossEntry(), ''].join('\n'));
  return path;
}

/** A browser of its own where {@link BOSS} logged in with password and TOTP: at /account, a fresh second factor. */
export async function bossLoggedIn(stack: Stack): Promise<Awaited<ReturnType<Stack['newPage']>>> {
  const admin = await stack.newPage();
  await admin.page.goto(`${stack.gatewayUrl}/login`);
  await submitPassword(admin.page, BOSS.username, BOSS.password);
  await admin.page.waitForURL(`${stack.gatewayUrl}/totp**`);
  await admin.page.getByLabel('One-time code').fill(await totpCode(BOSS));
  await admin.page.getByRole('button', { name: 'Verify' }).click();
  await admin.page.waitForURL(`${stack.gatewayUrl}/account`);
  return admin;
}

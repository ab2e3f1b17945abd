import { TEST_SECRET, hashOf } from './credentials';
import { APP_CLIENT_ENV, startOidcGateway } from './oidc-gateway';
import { runCli } from './process';

/** The kids a gateway started with `store` (REDIS_URL or DATABASE_URL) publishes at its JWKS. */
async function publishedKids(store: Record<string, string>): Promise<string[]> {
  const gw = await startOidcGateway({ ...APP_CLIENT_ENV, ...store });
  try {
    const jwks = (await (await fetch(`${gw.url}/oidc/jwks`)).json()) as { keys: { kid: string }[] };
    return jwks.keys.map((k) => k.kid);
  } finally {
    await gw.close();
  }
}

/**
 * `portcullis oidc keys rotate` then `retire` against a shared store (`store`: REDIS_URL or
 * DATABASE_URL), each followed by a gateway start: what the next start publishes. Resolves the
 * kids before, after the rotation and after the retirement, and the signing kid the rotation printed.
 */
export async function rotateAndRetireThroughCli(store: Record<string, string>) {
  const env = { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, USERS: `nobody:${hashOf('unused')}`, ...store };
  const before = await publishedKids(store);
  const rotated = await runCli(['oidc', 'keys', 'rotate'], { env });
  if (rotated.code !== 0) throw new Error(`rotate failed: ${rotated.stderr}`);
  const signing = /^(\S+) {2}RS256 {2}signs$/m.exec(rotated.stdout)?.[1];
  const afterRotation = await publishedKids(store);
  const retired = await runCli(['oidc', 'keys', 'retire', before[0]], { env });
  if (retired.code !== 0) throw new Error(`retire failed: ${retired.stderr}`);
  return { before, signing, afterRotation, afterRetirement: await publishedKids(store) };
}

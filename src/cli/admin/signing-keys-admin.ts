import type { KeyRow, SigningKeysAdmin } from '../commands/oidc-keys-command';
import { changeKeySet, generateSigningKeySet, parseSigningKeySet } from '../../composition/oidc-keys';
import { openAdminStore } from './admin-store';
import { TOKENS } from '../../composition/tokens';

/**
 * Opens the signing key set the gateway configured by `env` uses, sealed with its SECRET, in its
 * durable store (the embedded file, PostgreSQL or Redis). Gateways read the set when they start:
 * a change takes effect at each one's next start (docs/oidc.md: rotation). With
 * OIDC_SIGNING_KEY_FILE the stored set is not used, so the command refuses.
 */
export async function openSigningKeysAdmin(env: NodeJS.ProcessEnv, dataDir: string | null): Promise<SigningKeysAdmin> {
  const {
    config,
    picked: store,
    close,
  } = await openAdminStore(
    env,
    dataDir,
    'a key set kept in memory is generated anew at every start',
    'Stop the gateway, change the keys, start it again',
    (c) => c.get(TOKENS.SigningKeys),
  );
  if (config.oidc.signingKeyPem !== null) {
    await close();
    throw new Error('the signing keys come from OIDC_SIGNING_KEY_FILE: rotate by editing that file (see docs/oidc.md)');
  }
  const read = async () => parseSigningKeySet(await store.getOrCreate(generateSigningKeySet));
  const rows = (keys: Awaited<ReturnType<typeof read>>): KeyRow[] => keys.map((k, i) => ({ kid: k.kid, alg: k.alg, signs: i === 0 }));
  return {
    list: async () => rows(await read()),
    async change(change) {
      const next = changeKeySet(await read(), change);
      await store.replace(JSON.stringify({ keys: next }));
      return rows(next);
    },
    close,
  };
}

import type { KeySetChange } from '../../domain/signing-key-set';
import type { CliIo } from '../cli-io';
import { printableArg, storeCommandArgs, storeCommandUsage, withStore } from './store-command-args';

/** One key of the stored set as `portcullis oidc keys` shows it (never its private part). */
export interface KeyRow {
  readonly kid: string;
  readonly alg: string;
  /** True for the key that signs (the first RS256 key); the others are published for verification. */
  readonly signs: boolean;
}

/** The store `portcullis oidc keys` works on (see openSigningKeysAdmin in composition). */
export interface SigningKeysAdmin {
  list(): Promise<KeyRow[]>;
  /** Applies `change` and stores the set; resolves the new list. Throws an Error for the operator. */
  change(change: KeySetChange): Promise<KeyRow[]>;
  close(): Promise<void>;
}

export const OIDC_KEYS_HELP = `Usage: portcullis oidc keys list [--data-dir DIR]
       portcullis oidc keys rotate [--data-dir DIR]
       portcullis oidc keys add [--data-dir DIR]
       portcullis oidc keys promote <kid> [--data-dir DIR]
       portcullis oidc keys retire <kid> [--data-dir DIR]

The OpenID Connect signing key set kept in the gateway's store (DATA_DIR, DATABASE_URL or
REDIS_URL from the environment, sealed with SECRET); not for OIDC_SIGNING_KEY_FILE.

  list      the keys: which one signs, which are only published in the JWKS
  rotate    a new key signs; the others stay published, so tokens they signed still verify
  add       a new key is published but does not sign yet (several gateways: restart them all,
            then promote it, so every JWKS knows it before any token carries it)
  promote   a published RS256 key signs
  retire    a key that no longer signs leaves the JWKS; wait until tokens it signed have
            expired (OIDC_ACCESS_TOKEN_TTL after the gateways stopped signing with it)

Gateways read the key set when they start: restart them after a change. The embedded store
(DATA_DIR) is locked by a running gateway: stop it, change the keys, start it.
`;

const usage = (message: string, io: CliIo): number => storeCommandUsage('oidc keys', message, io);

/** `portcullis oidc keys list|rotate|add|promote|retire`: resolves the exit code (0 done, 1 failed, 2 wrong usage). */
export async function oidcKeysCommand(args: readonly string[], io: CliIo, open: (dataDir: string | null) => Promise<SigningKeysAdmin>): Promise<number> {
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    io.out(OIDC_KEYS_HELP);
    return args.length === 0 ? 2 : 0;
  }
  const [sub, ...rest] = args;
  const parsed = storeCommandArgs(rest);
  if (typeof parsed === 'string') return usage(parsed, io);
  const { dataDir, positional } = parsed;
  let change: KeySetChange | null;
  switch (sub) {
    case 'list':
      change = null;
      break;
    case 'rotate':
    case 'add':
      change = { kind: sub };
      break;
    case 'promote':
    case 'retire':
      if (positional.length !== 1) return usage(`oidc keys ${sub} takes exactly one <kid>`, io);
      change = { kind: sub, kid: positional[0] };
      break;
    default:
      return usage(`unknown command "oidc keys ${printableArg(String(sub))}"`, io);
  }
  if (change === null || change.kind === 'rotate' || change.kind === 'add') {
    if (positional.length !== 0) return usage(`oidc keys ${sub} takes no argument`, io);
  }

  return withStore(
    () => open(dataDir),
    io,
    'oidc keys',
    async (admin) => {
      const keys = change === null ? await admin.list() : await admin.change(change);
      for (const k of keys) io.out(`${k.kid}  ${k.alg}  ${k.signs ? 'signs' : 'published'}\n`);
      if (change !== null) io.out('restart the gateways: they read the key set when they start\n');
      return 0;
    },
  );
}

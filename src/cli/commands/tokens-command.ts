import type { CliIo } from '../cli-io';
import { printableArg, storeCommandArgs, storeCommandUsage, withStore } from './store-command-args';

/** A token as `portcullis tokens list` prints it: never the secret. */
export interface TokenLine {
  readonly id: string;
  readonly name: string;
  /** null: every application its owner may open. */
  readonly apps: readonly string[] | null;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly expiresAt: number;
  readonly revokedAt: number | null;
}

/** The store `portcullis tokens` works on (see openTokensAdmin in src/cli/admin). Each method throws an Error for the operator. */
export interface TokensAdmin {
  create(
    login: string,
    request: { readonly name: string; readonly apps?: readonly string[]; readonly expiresInDays?: number },
  ): Promise<{ readonly username: string; readonly token: string; readonly line: TokenLine }>;
  list(login: string): Promise<{ readonly username: string; readonly tokens: readonly TokenLine[] }>;
  /** Resolves the account's username. */
  revoke(login: string, id: string): Promise<string>;
  close(): Promise<void>;
}

export const TOKENS_HELP = `Usage: portcullis tokens create <name> --name TEXT [--app APP]... [--expires DAYS] [--data-dir DIR]
       portcullis tokens list <name> [--data-dir DIR]
       portcullis tokens revoke <name> <token id> [--data-dir DIR]

Makes, lists or revokes the access tokens of an account (<name>: a username or e-mail address of
the user store): a person's, or a service account's (an entry with "service: true" in the users
file, which has no password and holds tokens only). A script sends a token as
"Authorization: Bearer <token>" instead of a session cookie.

  create   prints the token on stdout, once: it is stored only as a keyed hash (SECRET must be the
           gateway's) and cannot be shown again. --name says what it is for (1 to 64 characters);
           each --app limits it to an application of the access rules (ACCESS_CONFIG), by name;
           --expires is its life in days (default and most: TOKEN_MAX_LIFETIME, 365).
  list     the account's tokens (never their secrets): id, name, applications, created, last
           used, expiry, and whether revoked.
  revoke   ends the token <token id> (as "list" shows it) at once on every gateway sharing the store.

The tokens are in the store the gateway uses with the same settings (DATA_DIR, DATABASE_URL or
REDIS_URL from the environment). The embedded store (DATA_DIR) is locked by a running gateway:
stop it first, or use PostgreSQL or Redis.

  --data-dir DIR   the gateway's DATA_DIR (default: the DATA_DIR variable, or ./data)
`;

const usage = (message: string, io: CliIo): number => storeCommandUsage('tokens', message, io);

/** What `create` asks for, taken out of the arguments; a string says what is wrong. */
interface CreateOptions {
  readonly name?: string;
  readonly apps: string[];
  readonly expires?: string;
  readonly rest: string[];
}

function takeCreateOptions(args: readonly string[]): CreateOptions | string {
  let name: string | undefined;
  let expires: string | undefined;
  const apps: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const option = ['--name', '--app', '--expires'].find((o) => arg === o || arg.startsWith(`${o}=`));
    if (option === undefined) {
      rest.push(arg);
      continue;
    }
    const value = arg === option ? args[(i += 1)] : arg.slice(option.length + 1);
    if (value === undefined) return `${option} needs a value`;
    if (option === '--app') apps.push(value);
    else if ((option === '--name' ? name : expires) !== undefined) return `${option} is given twice`;
    else if (option === '--name') name = value;
    else expires = value;
  }
  return { name, apps, expires, rest };
}

const iso = (ms: number): string => new Date(ms).toISOString();

function describe(t: TokenLine, now: number): string {
  const state = t.revokedAt !== null ? `  revoked ${iso(t.revokedAt)}` : t.expiresAt <= now ? '  expired' : '';
  return [
    t.id,
    JSON.stringify(t.name),
    `apps: ${t.apps === null ? 'all' : t.apps.join(',')}`,
    `created ${iso(t.createdAt)}`,
    `last used ${t.lastUsedAt === null ? 'never' : iso(t.lastUsedAt)}`,
    `expires ${iso(t.expiresAt)}${state}`,
  ].join('  ');
}

/** `portcullis tokens create|list|revoke`: resolves the exit code (0 done, 1 failed, 2 wrong usage). */
export async function tokensCommand(args: readonly string[], io: CliIo, open: (dataDir: string | null) => Promise<TokensAdmin>): Promise<number> {
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    io.out(TOKENS_HELP);
    return args.length === 0 ? 2 : 0;
  }
  const [sub, ...afterSub] = args;
  if (sub !== 'create' && sub !== 'list' && sub !== 'revoke') return usage(`unknown command "tokens ${printableArg(String(sub))}"`, io);
  const options = sub === 'create' ? takeCreateOptions(afterSub) : { apps: [], rest: [...afterSub] };
  if (typeof options === 'string') return usage(options, io);
  const parsed = storeCommandArgs(options.rest);
  if (typeof parsed === 'string') return usage(parsed, io);
  const { dataDir, positional } = parsed;
  const expiresInDays = options.expires === undefined ? undefined : /^\d{1,5}$/.test(options.expires) ? Number(options.expires) : NaN;
  if (sub === 'create') {
    if (positional.length !== 1) return usage('tokens create takes exactly one <name>', io);
    if (options.name === undefined) return usage('tokens create needs --name, what the token is for', io);
    if (Number.isNaN(expiresInDays)) return usage('--expires takes a whole number of days', io);
  } else if (sub === 'list' && positional.length !== 1) return usage('tokens list takes exactly one <name>', io);
  else if (sub === 'revoke' && positional.length !== 2) return usage('tokens revoke takes <name> and a <token id>', io);

  return withStore(
    () => open(dataDir),
    io,
    'tokens',
    async (admin) => {
      const [login, id] = positional;
      if (sub === 'create') {
        const made = await admin.create(login, {
          name: options.name as string,
          ...(options.apps.length > 0 ? { apps: options.apps } : {}),
          ...(expiresInDays === undefined ? {} : { expiresInDays }),
        });
        // The token alone on stdout (TOKEN=$(portcullis tokens create ...)); what it is, on stderr.
        io.err(`# token ${made.line.id} for ${made.username}, shown once: ${describe(made.line, Date.now())}\n`);
        io.out(`${made.token}\n`);
        return 0;
      }
      if (sub === 'list') {
        const { username, tokens } = await admin.list(login);
        if (tokens.length === 0) io.out(`${username} has no token\n`);
        const now = Date.now();
        for (const t of tokens) io.out(`${describe(t, now)}\n`);
        return 0;
      }
      const username = await admin.revoke(login, id);
      io.out(`revoked token ${id} of ${username}\n`);
      return 0;
    },
  );
}

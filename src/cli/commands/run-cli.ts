import { randomBytes } from 'node:crypto';
import { didYouMean } from '../../domain/near-miss';
import type { PasswordHasher } from '../../application/ports/password-hasher';
import { AUTHELIA_ARGON2ID, type PasswordHashParameters } from '../../domain/password-hash';
import { composeEscaped, formatUsersEntry, isValidUsername, parseUsersList, type UsersListEntry } from '../../domain/users-list';
import type { CliIo } from '../cli-io';
import type { QrCodeModule } from '../../adapters/qrcode/qr-code';
import type { DoctorDeps } from '../doctor/doctor-command';
import type { SigningKeysAdmin } from './oidc-keys-command';
import type { SessionsAdmin } from './sessions-command';
import type { PasskeyEnrolmentAdmin } from './passkeys-command';
import type { TokensAdmin } from './tokens-command';

export type { SessionsAdmin } from './sessions-command';
export type { SigningKeysAdmin } from './oidc-keys-command';

/** What the CLI asks of the composition root (which alone reads the environment). */
export interface CliDeps {
  /** A hasher that writes hashes of the given kind and cost (and verifies bcrypt and Argon2). */
  hasher(newHashes: PasswordHashParameters): PasswordHasher;
  /** The QR code library, loaded only by `totp enroll`. */
  qrcode(): QrCodeModule;
  /** The TOTP library, loaded only by `totp enroll` (its secret and otpauth URI). */
  otplib(): Pick<typeof import('otplib'), 'generateSecret' | 'generateURI'>;
  /** Validates the whole configuration (environment plus `argv` flags). */
  checkConfig(argv: readonly string[]): {
    readonly problems: readonly string[];
    readonly summary: readonly string[];
    readonly demo: boolean;
    /** Valid but risky settings, and secrets given as flags: printed, never fatal. */
    readonly warnings: readonly string[];
  };
  /** Runs the gateway; resolves its exit code (0 while it keeps running). */
  serve(argv: readonly string[]): Promise<number>;
  /** `explain <url> ...`: which access rule decides a request; resolves the exit code. */
  explain(argv: readonly string[], write: (line: string) => void): number;
  /**
   * `backup <file>`: an online copy of the database in `dataDir` (null: DATA_DIR, or ./data).
   * Resolves a summary line; throws an Error whose message is for the operator.
   */
  backup(file: string, dataDir: string | null): Promise<string>;
  /** `restore <file>`: puts a backup in place (the gateway stopped). Like {@link backup}. */
  restore(file: string, dataDir: string | null): Promise<string>;
  /** The gateway's options by group, with defaults and meanings, as `serve --help` prints them. */
  /** The options table as `--help` prints it, rendered only when asked for. */
  readonly optionsHelp: () => string;
  /** What `doctor` probes a live proxy with. */
  readonly doctor: DoctorDeps;
  /** `sessions list|revoke`: the gateway's store, opened from its settings (`dataDir` overrides DATA_DIR). Throws an Error for the operator. */
  sessions(dataDir: string | null): Promise<SessionsAdmin>;
  /** `oidc keys ...`: the stored signing key set, opened from the gateway's settings (`dataDir` overrides DATA_DIR). Throws an Error for the operator. */
  signingKeys(dataDir: string | null): Promise<SigningKeysAdmin>;
  /** `passkeys enrol`: the gateway's store and user store, opened from its settings. Throws an Error for the operator. */
  passkeys(dataDir: string | null): Promise<PasskeyEnrolmentAdmin>;
  /** `tokens create|list|revoke`: the gateway's store and user store, opened from its settings. Throws an Error for the operator. */
  tokens(dataDir: string | null): Promise<TokensAdmin>;
}

/** A mistake in how the CLI was called: one line, exit code 2. */
class UsageError extends Error {}
/** A request that could not be carried out: one line, exit code 1. */
class CommandError extends Error {}

const HELP = `Usage: portcullis [command]

Commands:
  serve [--option value ...]        start the gateway (the default when no command is given)
  init <dir> [--demo]               make a random secret and a users file in <dir>, once
  user add <name>                   make a USERS entry with a bcrypt (or --argon2id) hash (asks for the password)
  user verify <entry>               check a password against a USERS entry (asks, or --password-stdin/-file)
  totp enroll <name>                make a TOTP secret: otpauth:// URI, QR code, updated USERS entry
  config check [--option value ...] validate the whole configuration and list every problem
  oidc client add <id>              print an OpenID Connect client block with a new secret
  oidc keys list|rotate|retire ...  the OpenID Connect signing keys kept in the store
  explain <url> [--user NAME ...]   show which access rule decides a request, and why
  doctor <url> [--as USER]          probe a live proxy for wiring mistakes, with the fix for each
  sessions list <name>              the account's live sessions (browser, address, started, last seen)
  sessions revoke <name> <id>|--all end one or every session of the account
  passkeys enrol <name>             a single-use link for a passkey-only account's first passkey
  tokens create <name> --name TEXT  an access token for the account (printed once)
  tokens list|revoke <name> [<id>]  the account's access tokens, or end one
  import authelia|tinyauth ...      users, access rules and settings from Authelia or tinyauth (never wider)
  backup <file> [--data-dir DIR]    copy the database to a new file, while the gateway runs
  restore <file> [--data-dir DIR]   put a backup in place of the database (stop the gateway first)

Run "portcullis <command> --help" for a command's options.
`;

const DATABASE_HELP: Record<string, string> = {
  backup: `Usage: portcullis backup <file> [--data-dir DIR]

Writes a consistent copy of the gateway's database (portcullis.db in DATA_DIR, default ./data)
to <file>, a new file, owner-only. Safe while the gateway runs: it reads one snapshot and never
blocks the gateway's writes.

With DATABASE_URL (or DATABASE_URL_FILE) set and no --data-dir, the records are in PostgreSQL:
runs pg_dump --format=custom into <file> (restore it with pg_restore --clean).

  --data-dir DIR   the gateway's DATA_DIR (default: the DATA_DIR variable, or ./data)
`,
  restore: `Usage: portcullis restore <file> [--data-dir DIR]

Checks that <file> is a backup this Portcullis can read, then puts it in place of the database in
DATA_DIR. The gateway must be stopped. The database it replaces is kept next to it as
portcullis.db.replaced-<time>.

  --data-dir DIR   the gateway's DATA_DIR (default: the DATA_DIR variable, or ./data)
`,
};

const INIT_HELP = `Usage: portcullis init <dir> [--user NAME] [--demo | --password-stdin | --password-file F] [--cost N]

Makes what a first start needs, in <dir> (created, owner-only, when missing):
  secret   a random secret (48 bytes, base64), for SECRET_FILE
  users    one account, NAME (default alice) with a bcrypt hash of its password, for USERS_FILE
A file already there is kept as it is: run it on every start (a compose init service does), and
the secret (so every session) and the password stay.

  --user NAME         the account's name (default alice)
  --demo              the password is "portcullis-demo", printed: for a demo on your own machine only
  --password-stdin    read the password from the first line of standard input
  --password-file F   read the password from the first line of file F
  --cost N            bcrypt cost, 4 to 15 (default 10)
Without --demo the password is asked for (hidden) on a terminal, else read from standard input.
`;

/** The password `init --demo` gives its account; documented with the compose demo. */
const DEMO_PASSWORD = 'portcullis-demo';

const COMMAND_HELP: Record<string, string> = {
  'oidc client': `Usage: portcullis oidc client add <id> [--redirect-uri URL ...] [--name TEXT] [--public] [--backchannel-logout-uri URL]

Prints a ready OIDC_CLIENTS_<ID>_* block (environment variables) for one relying party, with a new
random client secret (43 characters). The secret is printed here only, never logged: put it in the
application's settings and in the gateway's environment (or a _FILE), then restart the gateway.

  --redirect-uri URL   the application's callback URL (repeat for several; exact match)
  --name TEXT          the name the logout confirmation shows
  --public             an application that cannot keep a secret (single-page, mobile): no secret, PKCE required
  --hashed             keep only a hash of the secret (CLIENT_SECRET_HASH, PBKDF2-SHA512 as Authelia writes it):
                       the secret itself is printed once, in a comment, for the application
  --backchannel-logout-uri URL
                       where the application takes back-channel logout tokens (told whenever a session it logged in from ends)
`,
  'user add': `Usage: portcullis user add <name> [--cost N | --argon2id] [--plain] [--password-stdin | --password-file F]

Asks for the password twice (hidden). When standard input is not a terminal, its first line is
the password and its second line, if there is one, the confirmation.
Prints a USERS entry (name:bcrypt-hash) and the same entry with every $ doubled for docker-compose.

  --cost N            bcrypt cost, 4 to 15 (default 10)
  --argon2id          an Argon2id hash instead, with Authelia's default parameters (m=65536, t=3, p=4)
  --plain             print only the entry line, nothing else
  --password-stdin    read the password from the first line of standard input, even on a terminal
  --password-file F   read the password from the first line of file F
`,
  'user verify': `Usage: portcullis user verify <entry> [--password-stdin | --password-file F | -]

Checks a password against a USERS entry (name:hash[:totp], $$ accepted) or a bare bcrypt or Argon2 hash.
The password is asked for (hidden) on a terminal, or read from the first line of standard input
(--password-stdin, or "-") or of a file (--password-file F). A password given as an argument
still works but shows in ps and shell history: a warning says so.
Exit code 0 when it matches, 1 when it does not.
`,
  'totp enroll': `Usage: portcullis totp enroll <name> [--entry <USERS entry>] [--issuer <text>] [--no-qr] [--png <file> [--force]]

Generates a TOTP secret and prints its otpauth:// URI, a QR code for an authenticator app and
the USERS entry with the secret added (give the current entry with --entry; without it, add
":<secret>" to the account's entry yourself, or "totp_secret: <secret>" in a YAML users file).

  --entry E    the account's current USERS entry (name:hash), completed with the new secret
  --issuer T   name shown in the authenticator app (default Portcullis)
  --no-qr      leave out the QR code (it is drawn black on white, for light and dark terminals)
  --png F      also write the QR code as a PNG image to F, readable by its owner only (it holds
               the secret: delete it once scanned); an existing F is kept unless --force
`,
  'config check': `Usage: portcullis config check [--option value ...]

Validates the configuration the gateway would start with (environment variables, and the same
--kebab-case flags "serve" takes), prints every problem and exits 1 when there is any.
`,
};

/**
 * The `portcullis` command line: account tooling, a configuration check, and the gateway itself.
 * Resolves the process exit code; every error is one line on stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo, deps: CliDeps): Promise<number> {
  try {
    return await dispatch(argv, io, deps);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`portcullis: ${e.message} (see portcullis --help)\n`);
      return 2;
    }
    if (e instanceof CommandError) {
      io.err(`portcullis: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

/** Every command's first word, for "did you mean" after a typo. */
const COMMANDS = ['serve', 'explain', 'import', 'doctor', 'sessions', 'passkeys', 'tokens', 'backup', 'restore', 'oidc', 'user', 'totp', 'config', 'help'];

async function dispatch(argv: readonly string[], io: CliIo, deps: CliDeps): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (command === undefined || (command.startsWith('--') && command !== '--help')) return deps.serve(argv);
  if (command === '--help' || command === '-h' || command === 'help') {
    io.out(HELP);
    return 0;
  }
  if (command === 'serve') {
    const args = argv.slice(1);
    if (args.includes('--help') || args.includes('-h')) {
      io.out(serveHelp(deps.optionsHelp()));
      return 0;
    }
    return deps.serve(args);
  }
  if (command === 'explain') {
    const args = argv.slice(1);
    const write = (line: string): void => io.out(`${line}\n`);
    // explain prints its usage (exit 2) when called without a URL; asked for help, that is a success.
    if (args.includes('--help') || args.includes('-h')) {
      deps.explain([], write);
      return 0;
    }
    return deps.explain(args, write);
  }
  // Each command's own modules load only when it is the command run: the gateway (`serve`, the
  // default) never carries the doctor, the session and passkey tooling or the QR renderer (ADR 0015).
  if (command === 'doctor')
    return (require('../doctor/doctor-command') as typeof import('../doctor/doctor-command')).doctorCommand(argv.slice(1), io, deps.doctor);
  if (command === 'sessions') return (require('./sessions-command') as typeof import('./sessions-command')).sessionsCommand(argv.slice(1), io, deps.sessions);
  if (command === 'tokens') return (require('./tokens-command') as typeof import('./tokens-command')).tokensCommand(argv.slice(1), io, deps.tokens);
  if (command === 'import') return (require('./import-command') as typeof import('./import-command')).importCommand(argv.slice(1), io);
  if (command === 'passkeys') return (require('./passkeys-command') as typeof import('./passkeys-command')).passkeysCommand(argv.slice(1), io, deps.passkeys);
  if (command === 'backup' || command === 'restore') {
    const args = argv.slice(1);
    if (args.includes('--help') || args.includes('-h')) {
      io.out(DATABASE_HELP[command]);
      return 0;
    }
    const { positional, flags } = parseArgs(args, ['--data-dir'], []);
    if (positional.length !== 1) throw new UsageError(`${command} takes exactly one <file>`);
    try {
      const summary = await (command === 'backup' ? deps.backup : deps.restore)(positional[0], flags.get('--data-dir') ?? null);
      io.out(`${summary}\n`);
      return 0;
    } catch (e) {
      throw new CommandError(e instanceof Error ? e.message : `${command} failed`);
    }
  }
  if (command === 'init') {
    if (argv.includes('--help') || argv.includes('-h')) {
      io.out(INIT_HELP);
      return 0;
    }
    return init(argv.slice(1), io, deps);
  }
  if (command === 'oidc' && sub === 'keys') return oidcKeysCommand().oidcKeysCommand(argv.slice(2), io, deps.signingKeys);
  if (command === 'oidc') return oidcCommand(argv.slice(1), io);
  if (command !== 'user' && command !== 'totp' && command !== 'config')
    throw new UsageError(`unknown command "${printable(command)}"${didYouMean(command, COMMANDS)}`);
  if (sub === undefined || sub === '--help' || sub === '-h') {
    const subs = Object.keys(COMMAND_HELP).filter((k) => k.startsWith(`${command} `));
    if (sub === undefined) throw new UsageError(`"${command}" needs a subcommand: ${subs.map((s) => s.split(' ')[1]).join(', ')}`);
    io.out(subs.map((s) => COMMAND_HELP[s]).join('\n'));
    return 0;
  }
  const name = `${command} ${sub}`;
  const help = COMMAND_HELP[name];
  if (help === undefined) throw new UsageError(`unknown command "${printable(name)}"${didYouMean(name, Object.keys(COMMAND_HELP))}`);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(help);
    return 0;
  }
  switch (name) {
    case 'user add':
      return userAdd(rest, io, deps);
    case 'user verify':
      return userVerify(rest, io, deps);
    case 'totp enroll':
      return totpEnroll(rest, io, deps);
    case 'config check':
      return configCheck(rest, io, deps);
    default:
      throw new UsageError(`unknown command "${printable(name)}"`);
  }
}

/** Splits arguments into positionals and the flags a command knows (`values` take one argument). */
function parseArgs(args: readonly string[], values: readonly string[], switches: readonly string[]): { positional: string[]; flags: Map<string, string> } {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (!arg.startsWith('--') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (switches.includes(flag) && eq === -1) flags.set(flag, 'true');
    else if (values.includes(flag)) {
      const value = eq === -1 ? args[(i += 1)] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      flags.set(flag, value);
    } else throw new UsageError(`unknown option ${printable(flag)}${didYouMean(flag, [...values, ...switches])}`);
  }
  return { positional, flags };
}

function oneName(positional: string[], command: string): string {
  if (positional.length !== 1) throw new UsageError(`${command} takes exactly one <name>`);
  const name = positional[0];
  if (!isValidUsername(name)) throw new UsageError('the name must be 1 to 256 printable characters without spaces, commas, colons or invisible characters');
  return name;
}

/** `portcullis oidc client add <id>`: a client block with a fresh secret, on standard output only. */
function oidcCommand(args: readonly string[], io: CliIo): number {
  const [sub, action, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h' || action === '--help' || action === '-h' || rest.includes('--help') || rest.includes('-h')) {
    // `oidc --help` lists both families; `oidc client ... --help` only its own.
    io.out(sub === 'client' ? COMMAND_HELP['oidc client'] : `${COMMAND_HELP['oidc client']}\n${oidcKeysCommand().OIDC_KEYS_HELP}`);
    return 0;
  }
  if (sub !== 'client' || action !== 'add')
    throw new UsageError(
      `unknown command "oidc ${printable(sub)}${action === undefined ? '' : ` ${printable(action)}`}" (try: portcullis oidc client add <id>)`,
    );
  const positional: string[] = [];
  const redirectUris: string[] = [];
  let name: string | undefined;
  let isPublic = false;
  let hashed = false;
  let backchannel: string | undefined;
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i];
    if (arg === '--public') isPublic = true;
    else if (arg === '--hashed') hashed = true;
    else if (arg === '--redirect-uri' || arg === '--name' || arg === '--backchannel-logout-uri') {
      const value = rest[(i += 1)];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      if (arg === '--name') name = value;
      else if (arg === '--backchannel-logout-uri') backchannel = value;
      else redirectUris.push(value);
    } else if (arg.startsWith('--'))
      throw new UsageError(
        `unknown option ${printable(arg)}${didYouMean(arg, ['--public', '--hashed', '--redirect-uri', '--name', '--backchannel-logout-uri'])}`,
      );
    else positional.push(arg);
  }
  if (positional.length !== 1) throw new UsageError('give exactly one client id: portcullis oidc client add <id>');
  if (isPublic && hashed) throw new UsageError('--public and --hashed do not go together: a public client has no secret');
  const id = positional[0];
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(id)) throw new UsageError('the client id may hold letters, digits, "-" and "_" (at most 64)');
  const key = `OIDC_CLIENTS_${id.toUpperCase().replace(/-/g, '_')}_`;
  const lines = [
    `# OpenID Connect client "${id}": add to the gateway's environment, then restart it.`,
    `${key}CLIENT_ID=${id}`,
    ...(isPublic ? [`${key}PUBLIC=true`] : clientSecretLines(key, hashed)),
    `${key}REDIRECT_URIS=${redirectUris.length > 0 ? redirectUris.join(',') : 'https://app.example.com/oauth/callback'}`,
    ...(name === undefined ? [] : [`${key}NAME=${name}`]),
    ...(backchannel === undefined ? [] : [`${key}BACKCHANNEL_LOGOUT_URI=${backchannel}`]),
    `# optional: ${key}POST_LOGOUT_REDIRECT_URIS=..., ${key}ALLOWED_GROUPS=..., ${key}ALLOWED_USERS=...`,
    ...(redirectUris.length > 0 ? [] : ['# replace REDIRECT_URIS with the callback URL the application documents']),
    '',
  ];
  io.out(lines.join('\n'));
  return 0;
}

/**
 * A new client secret's lines: the secret itself, or (`--hashed`) the secret in a comment for the
 * application and its PBKDF2-SHA512 hash for the gateway, also in the form docker-compose.yml needs.
 */
function clientSecretLines(key: string, hashed: boolean): string[] {
  const secret = randomBytes(32).toString('base64url');
  if (!hashed) return [`${key}CLIENT_SECRET=${secret}`];
  const hash = hashedClientSecrets().pbkdf2Sha512Hash(secret);
  return [
    `# the application's client secret (shown only here; the gateway keeps only its hash): ${secret}`,
    `${key}CLIENT_SECRET_HASH='${hash}'`,
    `# the same inside docker-compose.yml, where $ must be written $$: ${key}CLIENT_SECRET_HASH=${composeEscaped(hash)}`,
  ];
}

/** `--cost`: bcrypt's work factor, 10 unless given. */
function bcryptCost(flags: ReadonlyMap<string, string>): number {
  const costRaw = flags.get('--cost') ?? '10';
  const cost = Number(costRaw);
  if (!/^\d+$/.test(costRaw) || cost < 4 || cost > 15) throw new UsageError('--cost must be a whole number from 4 to 15');
  return cost;
}

async function userAdd(args: readonly string[], io: CliIo, deps: CliDeps): Promise<number> {
  const { positional, flags } = parseArgs(args, ['--cost', '--password-file'], ['--plain', '--password-stdin', '--argon2id']);
  const name = oneName(positional, 'user add');
  if (flags.has('--argon2id') && flags.has('--cost')) throw new UsageError("--cost is bcrypt's: --argon2id writes Authelia's default parameters");
  const kind: PasswordHashParameters = flags.has('--argon2id') ? AUTHELIA_ARGON2ID : { kind: 'bcrypt', cost: bcryptCost(flags) };
  const password = await readNewPassword(io, flags);
  const hash = await deps.hasher(kind).hash(password);
  const entry = formatUsersEntry({ username: name, hash });
  if (flags.has('--plain')) io.out(`${entry}\n`);
  else {
    io.out(
      [
        '# USERS entry (the USERS variable, or one line of USERS_FILE):',
        entry,
        '# the same inside docker-compose.yml, where $ must be written $$:',
        composeEscaped(entry),
        '# in a YAML users file:',
        `#   - username: ${name}`,
        `#     password: "${hash}"`,
        '',
      ].join('\n'),
    );
  }
  return 0;
}

/**
 * `portcullis init <dir>`: a random secret and a one-account users file, each written only when
 * missing (O_EXCL), so running it before every start changes nothing after the first.
 */
async function init(args: readonly string[], io: CliIo, deps: CliDeps): Promise<number> {
  const { positional, flags } = parseArgs(args, ['--user', '--cost', '--password-file'], ['--demo', '--password-stdin']);
  if (positional.length !== 1 || positional[0] === '') throw new UsageError('init takes exactly one <dir>');
  const dir = positional[0].replace(/\/+$/, '') || '/';
  const name = flags.get('--user') ?? 'alice';
  if (!isValidUsername(name)) throw new UsageError('the name must be 1 to 256 printable characters without spaces, commas, colons or invisible characters');
  const demo = flags.has('--demo');
  if (demo && (flags.has('--password-stdin') || flags.has('--password-file')))
    throw new UsageError('--demo sets the password: give no --password-stdin or --password-file');
  const cost = bcryptCost(flags);

  try {
    await io.makePrivateDirectory(dir);
  } catch {
    throw new CommandError(`cannot make the directory ${printable(dir)}`);
  }
  const write = async (file: string, data: () => Promise<string>): Promise<boolean> => {
    const path = `${dir === '/' ? '' : dir}/${file}`;
    try {
      await io.writeSecretFile(path, Buffer.from(await data()), false);
      io.out(`wrote ${path}\n`);
      return true;
    } catch (e) {
      if ((e as { code?: string }).code !== 'EEXIST') throw new CommandError(`cannot write ${printable(path)}`);
      io.out(`kept ${path} (it exists)\n`);
      return false;
    }
  };
  await write('secret', async () => `${randomBytes(48).toString('base64')}\n`);
  const usersPath = `${dir === '/' ? '' : dir}/users`;
  // The password is asked for only when the file is to be written: a rerun never prompts.
  const exists = await io.readFile(usersPath).then(
    () => true,
    () => false,
  );
  if (exists) io.out(`kept ${usersPath} (it exists)\n`);
  else {
    const password = demo ? DEMO_PASSWORD : await readNewPassword(io, flags);
    const wrote = await write(
      'users',
      async () => `${formatUsersEntry({ username: name, hash: await deps.hasher({ kind: 'bcrypt', cost }).hash(password) })}\n`,
    );
    if (wrote && demo) io.out(`demo account: ${name} / ${DEMO_PASSWORD} (a demo on your own machine only: anyone who read this can log in)\n`);
  }
  return 0;
}

async function readNewPassword(io: CliIo, flags: ReadonlyMap<string, string>): Promise<string> {
  let password: string;
  let confirmation: string | undefined;
  if (flags.has('--password-file') && flags.has('--password-stdin')) throw new UsageError('give --password-stdin or --password-file, not both');
  if (flags.has('--password-file')) {
    password = await passwordFromFile(io, flags.get('--password-file') as string);
  } else if (io.interactive && !flags.has('--password-stdin')) {
    password = await io.promptHidden('Password: ').catch(() => {
      throw new CommandError('cancelled');
    });
    confirmation = await io.promptHidden('Repeat password: ').catch(() => {
      throw new CommandError('cancelled');
    });
  } else {
    const lines = await io.readLines();
    password = lines[0] ?? '';
    confirmation = lines[1] === undefined || lines[1] === '' ? undefined : lines[1];
  }
  if (password === '') throw new CommandError('no password given (type it, or pipe it as the first line of standard input)');
  if (Buffer.byteLength(password) > 72) throw new CommandError('the password is longer than 72 bytes, which bcrypt would silently cut; choose a shorter one');
  if (confirmation !== undefined && confirmation !== password) throw new CommandError('the two passwords differ');
  return password;
}

/** The first line of a password file (its line ending is not part of the password). */
async function passwordFromFile(io: CliIo, path: string): Promise<string> {
  let text: string;
  try {
    text = await io.readFile(path);
  } catch {
    throw new CommandError(`cannot read the password file ${printable(path)}`);
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/** Reads one USERS entry, or a bare hash, as `user verify` and `totp enroll` accept it. */
function readEntry(text: string): UsersListEntry {
  const trimmed = text.trim().replace(/\$\$/g, '$');
  if (/^\$(2[aby]|argon2i?d?)\$/.test(trimmed)) return { username: '', hash: trimmed };
  const parsed = parseUsersList(trimmed, 'comma');
  if (parsed.problems.length > 0) throw new UsageError(parsed.problems[0].replace(/^entry 1/, 'the entry'));
  if (parsed.entries.length !== 1) throw new UsageError('give exactly one entry (username:password-hash[:totp-secret])');
  return parsed.entries[0];
}

async function userVerify(args: readonly string[], io: CliIo, deps: CliDeps): Promise<number> {
  const { positional, flags } = parseArgs(args, ['--password-file'], ['--password-stdin']);
  if (positional.length < 1 || positional.length > 2)
    throw new UsageError('user verify takes an <entry>, and the password by --password-stdin, --password-file or a prompt');
  const entry = readEntry(positional[0]);
  const given = positional[1];
  const sources = [given !== undefined, flags.has('--password-stdin'), flags.has('--password-file')].filter(Boolean).length;
  if (sources > 1) throw new UsageError('give the password one way: --password-stdin, --password-file, "-" or an argument');
  let password: string;
  if (flags.has('--password-file')) password = await passwordFromFile(io, flags.get('--password-file') as string);
  else if (given === '-' || flags.has('--password-stdin') || (given === undefined && !io.interactive)) password = (await io.readLines())[0] ?? '';
  else if (given === undefined) {
    password = await io.promptHidden('Password: ').catch(() => {
      throw new CommandError('cancelled');
    });
  } else {
    // Still accepted (scripts use it), but the password is now in ps and the shell's history.
    io.err(
      'portcullis: warning: a password given as an argument is visible to other users (ps) and stays in shell history; use --password-stdin or --password-file\n',
    );
    password = given;
  }
  const who = entry.username === '' ? 'the hash' : `${entry.username}'s entry`;
  if (await deps.hasher({ kind: 'bcrypt', cost: 10 }).verify(password, entry.hash)) {
    io.out(`the password matches ${who}\n`);
    return 0;
  }
  io.out(`the password does NOT match ${who}\n`);
  return 1;
}

async function totpEnroll(args: readonly string[], io: CliIo, deps: CliDeps): Promise<number> {
  const { positional, flags } = parseArgs(args, ['--entry', '--issuer', '--png'], ['--no-qr', '--force']);
  const name = oneName(positional, 'totp enroll');
  const png = flags.get('--png') ?? null;
  if (png === '') throw new UsageError('--png needs a file name');
  if (flags.has('--force') && png === null) throw new UsageError('--force goes with --png');
  const issuer = flags.get('--issuer') ?? 'Portcullis';
  if (issuer.trim() === '' || issuer.includes(':')) throw new UsageError('--issuer must be non-empty text without a colon');
  const existing = flags.has('--entry') ? readEntry(flags.get('--entry') as string) : null;
  if (existing !== null && existing.username.toLowerCase() !== name.toLowerCase()) {
    throw new UsageError(`the entry given with --entry belongs to "${printable(existing.username)}", not "${name}"`);
  }
  const { generateSecret, generateURI } = deps.otplib();
  const secret = generateSecret();
  const uri = generateURI({ issuer, label: name, secret });
  const lines = [`TOTP secret for ${name}: ${secret}`, `otpauth URI: ${uri}`, ''];
  if (png !== null) {
    try {
      await io.writeSecretFile(png, await qrCodes().pngQr(deps.qrcode(), uri), flags.has('--force'));
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      throw new CommandError(code === 'EEXIST' ? `${printable(png)} exists: give --force to replace it` : `cannot write ${printable(png)}`);
    }
    lines.push(`QR code written to ${png} (readable by you only; delete it once scanned)`, '');
  }
  if (!flags.has('--no-qr')) lines.push('Scan this with an authenticator app:', qrCodes().terminalQr(deps.qrcode(), uri));
  if (existing !== null) {
    if (existing.totpSecret !== undefined) io.err('portcullis: note: the entry had a TOTP secret; the new one replaces it\n');
    const entry = formatUsersEntry({ ...existing, username: name, totpSecret: secret });
    lines.push('# updated USERS entry:', entry, '# the same inside docker-compose.yml:', composeEscaped(entry));
  } else {
    lines.push(
      `# add ":${secret}" to the end of ${name}'s USERS entry (name:hash:${secret}),`,
      `# or "totp_secret: ${secret}" to its entry in a YAML users file.`,
    );
  }
  io.out(`${lines.join('\n')}\n`);
  return 0;
}

async function configCheck(args: readonly string[], io: CliIo, deps: CliDeps): Promise<number> {
  const result = deps.checkConfig(args);
  for (const warning of result.warnings) io.err(`portcullis: warning: ${warning}\n`);
  if (result.problems.length > 0) {
    io.err(
      `The configuration has ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}:\n${result.problems.map((p) => `  - ${p}\n`).join('')}`,
    );
    return 1;
  }
  if (result.demo) {
    io.err('portcullis: nothing is configured (APP_URL, SECRET, USERS, USERS_FILE, LDAP_ADDRESS are unset): the gateway would start a throwaway demo\n');
    return 1;
  }
  io.out(`The configuration is valid.\n${result.summary.map((s) => `  ${s}\n`).join('')}`);
  return 0;
}

/** `portcullis oidc keys`, loaded with that command (or its help). */
function oidcKeysCommand(): typeof import('./oidc-keys-command') {
  return require('./oidc-keys-command') as typeof import('./oidc-keys-command');
}

/** The client secret hashing, loaded with `oidc client add --hashed`. */
function hashedClientSecrets(): typeof import('../../adapters/crypto/hashed-client-secrets') {
  return require('../../adapters/crypto/hashed-client-secrets') as typeof import('../../adapters/crypto/hashed-client-secrets');
}

/** The QR renderers, loaded with `totp enroll` like the qrcode package they drive. */
function qrCodes(): typeof import('../../adapters/qrcode/qr-code') {
  return require('../../adapters/qrcode/qr-code') as typeof import('../../adapters/qrcode/qr-code');
}

function serveHelp(optionsHelp: string): string {
  return `Usage: portcullis [serve] [--option value ...]

Starts the gateway. Every option is an environment variable (--app-url is APP_URL) and also a flag:

${optionsHelp}
`;
}

function printable(s: string): string {
  const clean = s.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}...` : clean;
}

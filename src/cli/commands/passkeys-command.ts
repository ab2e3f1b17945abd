import type { CliIo } from '../cli-io';

/** What `portcullis passkeys enrol` works with (see openPasskeyEnrolment in composition). */
export interface PasskeyEnrolmentAdmin {
  /** Makes a link for the passkey-only account `login`; throws an Error whose message is for the operator. */
  enrol(login: string): Promise<{ readonly username: string; readonly url: string; readonly expiresAt: number }>;
  close(): Promise<void>;
}

export const PASSKEYS_HELP = `Usage: portcullis passkeys enrol <name> [--data-dir DIR]

Makes a single-use link with which the person behind the passkey-only account <name> (an entry
with "passkey_only: true" in the users file, or "name:passkey-only" in its line form) registers a
passkey and is signed in. Give them the link over a channel you trust; it works once, for
PASSKEY_ENROL_LINK_LIFETIME seconds (default 24 hours). A new link for a person who lost their
passkey works the same way. The code after "#" never reaches a server log: browsers do not send it.

The link is stored (as a keyed hash) in the store the gateway uses with the same settings
(DATA_DIR, DATABASE_URL or REDIS_URL from the environment). The embedded store (DATA_DIR) is
locked by a running gateway: stop it first, or use PostgreSQL or Redis.

  --data-dir DIR   the gateway's DATA_DIR (default: the DATA_DIR variable, or ./data)
`;

function usage(message: string, io: CliIo): number {
  io.err(`portcullis: ${message} (see portcullis passkeys --help)\n`);
  return 2;
}

const printable = (s: string): string => s.replace(/[^\x20-\x7e]/g, '?').slice(0, 40);

/** `portcullis passkeys enrol <name>`: resolves the exit code (0 done, 1 failed, 2 wrong usage). */
export async function passkeysCommand(args: readonly string[], io: CliIo, open: (dataDir: string | null) => Promise<PasskeyEnrolmentAdmin>): Promise<number> {
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    io.out(PASSKEYS_HELP);
    return args.length === 0 ? 2 : 0;
  }
  const [sub, ...rest] = args;
  if (sub !== 'enrol' && sub !== 'enroll') return usage(`unknown command "passkeys ${printable(String(sub))}"`, io);
  let dataDir: string | null = null;
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i];
    if (arg === '--data-dir') {
      dataDir = rest[(i += 1)] ?? null;
      if (dataDir === null) return usage('--data-dir needs a value', io);
    } else if (arg.startsWith('--data-dir=')) dataDir = arg.slice('--data-dir='.length);
    else if (arg.startsWith('--')) return usage(`unknown option ${printable(arg)}`, io);
    else positional.push(arg);
  }
  if (positional.length !== 1) return usage('passkeys enrol takes exactly one <name>', io);

  let admin: PasskeyEnrolmentAdmin;
  try {
    admin = await open(dataDir);
  } catch (e) {
    io.err(`portcullis: ${e instanceof Error ? e.message.split('\n')[0] : 'cannot open the store'}\n`);
    return 1;
  }
  try {
    const link = await admin.enrol(positional[0]);
    io.out([`# first-passkey link for ${link.username}, valid once until ${new Date(link.expiresAt).toISOString()}:`, link.url, ''].join('\n'));
    return 0;
  } catch (e) {
    io.err(`portcullis: ${e instanceof Error ? e.message.split('\n')[0] : 'passkeys enrol failed'}\n`);
    return 1;
  } finally {
    await admin.close();
  }
}

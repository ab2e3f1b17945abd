import type { IndexedSession } from '../../application/ports/session-index';
import { describeUserAgent } from '../../adapters/http/user-agent';
import type { CliIo } from '../cli-io';
import { printableArg, storeCommandArgs, storeCommandUsage, withStore } from './store-command-args';

/** The store `portcullis sessions` works on (see openSessionsAdmin in composition). */
export interface SessionsAdmin {
  list(username: string): Promise<IndexedSession[]>;
  revoke(username: string, id?: string): Promise<number>;
  close(): Promise<void>;
}

export const SESSIONS_HELP = `Usage: portcullis sessions list <name> [--data-dir DIR]
       portcullis sessions revoke <name> (<session id> | --all) [--data-dir DIR]

Lists or ends the live sessions of an account (<name>: the username, or the e-mail address of an
OAuth login), in the store the gateway uses with the same settings (DATA_DIR, DATABASE_URL or
REDIS_URL from the environment). With PostgreSQL or Redis every running gateway refuses a revoked
session at once. The embedded store (DATA_DIR) is locked by a running gateway: stop it first, or
let the person use "Sign out everywhere" on the account page.
`;

const usage = (message: string, io: CliIo): number => storeCommandUsage('sessions', message, io);

/** `portcullis sessions list|revoke`: resolves the exit code (0 done, 1 failed, 2 wrong usage). */
export async function sessionsCommand(args: readonly string[], io: CliIo, open: (dataDir: string | null) => Promise<SessionsAdmin>): Promise<number> {
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    io.out(SESSIONS_HELP);
    return args.length === 0 ? 2 : 0;
  }
  const [sub, ...rest] = args;
  const parsed = storeCommandArgs(rest, ['--all']);
  if (typeof parsed === 'string') return usage(parsed, io);
  const { dataDir, positional } = parsed;
  const all = parsed.switches.has('--all');
  if (sub === 'list') {
    if (positional.length !== 1 || all) return usage('sessions list takes exactly one <name>', io);
  } else if (sub === 'revoke') {
    if (positional.length === 0 || positional.length > 2) return usage('sessions revoke takes <name> and a <session id>, or --all', io);
    if ((positional.length === 2) === all) return usage('give either one <session id> or --all', io);
  } else {
    return usage(`unknown command "sessions ${printableArg(String(sub))}"`, io);
  }

  return withStore(
    () => open(dataDir),
    io,
    'sessions',
    async (admin) => {
      const [username, id] = positional;
      if (sub === 'list') {
        const sessions = await admin.list(username);
        if (sessions.length === 0) io.out(`${username} has no live session\n`);
        for (const s of sessions) {
          const { browser, platform } = describeUserAgent(s.userAgent);
          const device = [browser || 'unknown browser', platform].filter((x) => x !== '').join(' on ');
          io.out(
            `${s.id}  ${device}  ${s.address}  via ${s.method}  started ${new Date(s.startedAt).toISOString()}  last seen ${new Date(s.lastSeenAt).toISOString()}\n`,
          );
        }
        return 0;
      }
      const count = await admin.revoke(username, all ? undefined : id);
      io.out(`revoked ${count} session${count === 1 ? '' : 's'} of ${username}\n`);
      return 0;
    },
  );
}

import type { CliIo } from '../cli-io';

/** A command's arguments once `--data-dir` and its switches are taken out. */
export interface StoreCommandArgs {
  readonly dataDir: string | null;
  readonly positional: readonly string[];
  readonly switches: ReadonlySet<string>;
}

/** Prints a usage problem of `command` (one line, pointing at its --help); resolves exit code 2. */
export function storeCommandUsage(command: string, message: string, io: CliIo): number {
  io.err(`portcullis: ${message} (see portcullis ${command} --help)\n`);
  return 2;
}

/** Printable, short: what an unknown argument is echoed as. */
export const printableArg = (arg: string): string => arg.replace(/[^\x20-\x7e]/g, '?').slice(0, 40);

/**
 * The arguments of a command that opens the gateway's store (`sessions`, `oidc keys`): `--data-dir
 * DIR` (or `=DIR`), the `switches` it knows, positionals; a string says what is wrong.
 */
export function storeCommandArgs(args: readonly string[], switches: readonly string[] = []): StoreCommandArgs | string {
  let dataDir: string | null = null;
  const positional: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (switches.includes(arg)) seen.add(arg);
    else if (arg === '--data-dir') {
      dataDir = args[(i += 1)] ?? null;
      if (dataDir === null) return '--data-dir needs a value';
    } else if (arg.startsWith('--data-dir=')) dataDir = arg.slice('--data-dir='.length);
    else if (arg.startsWith('--')) return `unknown option ${printableArg(arg)}`;
    else positional.push(arg);
  }
  return { dataDir, positional, switches: seen };
}

/**
 * Opens the store with `open`, runs `work` on it and closes it whatever happens; a failure to open
 * or in `work` is one line on stderr and exit code 1 (`what` names the command when the error has
 * no message of its own).
 */
export async function withStore<Admin extends { close(): Promise<void> }>(
  open: () => Promise<Admin>,
  io: CliIo,
  what: string,
  work: (admin: Admin) => Promise<number>,
): Promise<number> {
  let admin: Admin;
  try {
    admin = await open();
  } catch (e) {
    io.err(`portcullis: ${e instanceof Error ? e.message.split('\n')[0] : 'cannot open the store'}\n`);
    return 1;
  }
  try {
    return await work(admin);
  } catch (e) {
    io.err(`portcullis: ${e instanceof Error ? e.message.split('\n')[0] : `${what} failed`}\n`);
    return 1;
  } finally {
    await admin.close();
  }
}

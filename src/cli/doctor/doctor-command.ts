import { randomBytes } from 'node:crypto';
import type { CliIo } from '../cli-io';
import { diagnose } from './diagnose';
import { formatFinding, summary, type Finding } from './findings';
import type { ProbeTransport } from './probe-transport';
import type { SocketTransportOptions } from './socket-probe-transport';

export const DOCTOR_HELP = `Usage: portcullis doctor <protected-url> [--as <user>] [options]

Probes a live proxy from this machine, the way an outsider would, and reports each finding as
PASS, WARN, FAIL or SKIP with the fix. Exit code 1 when anything FAILs.

  --as USER             also log in as USER through the gateway's /api/login (found through the
                        login redirect) to check the session cookie and the headers the app sees;
                        the password is asked for (hidden) on a terminal, else read from the first
                        line of standard input; never an argument
  --password-stdin      read it from the first line of standard input, even on a terminal
  --password-file PATH  read it from the first line of PATH
  --public-path PATH    a path the access rules leave public: ambiguous paths then aim at it
  --resolve HOST:ADDR   connect to ADDR for HOST (repeatable; HOST may be *.example.com), for a
                        proxy whose names do not resolve from here yet
  --insecure            accept a self-signed or otherwise untrusted TLS certificate
  --timeout SECONDS     per request (default 10)
`;

/** A mistake in how the command was called (exit code 2). */
class DoctorUsageError extends Error {}

export interface DoctorDeps {
  /** The transport the probes go through (raw sockets in production). */
  transport(options: SocketTransportOptions): ProbeTransport;
}

interface DoctorArgs {
  readonly url: URL;
  readonly as?: string;
  readonly passwordFile?: string;
  readonly passwordStdin: boolean;
  readonly publicPath?: string;
  readonly transport: SocketTransportOptions;
}

function parse(args: readonly string[]): DoctorArgs {
  const positional: string[] = [];
  const resolve = new Map<string, string>();
  let as: string | undefined;
  let passwordFile: string | undefined;
  let publicPath: string | undefined;
  let insecure = false;
  let passwordStdin = false;
  let timeoutMs = 10_000;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (flag === '--insecure' && eq === -1) {
      insecure = true;
      continue;
    }
    if (flag === '--password-stdin' && eq === -1) {
      passwordStdin = true;
      continue;
    }
    if (flag === '--password' || flag === '--pass') {
      // An argument lands in the shell history and in every `ps` listing.
      throw new DoctorUsageError('never give a password as an argument: pipe it on standard input or use --password-file');
    }
    if (!['--as', '--password-file', '--public-path', '--resolve', '--timeout'].includes(flag)) throw new DoctorUsageError(`unknown option ${printable(flag)}`);
    const value = eq === -1 ? args[(i += 1)] : arg.slice(eq + 1);
    if (value === undefined || value === '') throw new DoctorUsageError(`${flag} needs a value`);
    switch (flag) {
      case '--as':
        as = value;
        break;
      case '--password-file':
        passwordFile = value;
        break;
      case '--public-path':
        if (!value.startsWith('/') || /[\s?#]/.test(value)) throw new DoctorUsageError('--public-path must be a path starting with / (no query)');
        publicPath = value;
        break;
      case '--resolve': {
        const colon = value.lastIndexOf(':', value.endsWith(']') ? value.lastIndexOf('[') : undefined);
        const host = value.slice(0, colon).toLowerCase();
        const address = value.slice(colon + 1).replace(/^\[|\]$/g, '');
        if (colon <= 0 || address === '') throw new DoctorUsageError('--resolve takes HOST:ADDRESS (e.g. app.example.com:203.0.113.7)');
        resolve.set(host, address);
        break;
      }
      case '--timeout': {
        const seconds = Number(value);
        if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 300) throw new DoctorUsageError('--timeout must be a number of seconds from 0 to 300');
        timeoutMs = seconds * 1000;
        break;
      }
      default:
        throw new DoctorUsageError(`unknown option ${printable(flag)}`);
    }
  }
  if (positional.length !== 1) throw new DoctorUsageError('doctor takes exactly one <protected-url>');
  let url: URL;
  try {
    url = new URL(positional[0]);
  } catch {
    throw new DoctorUsageError('the protected URL must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DoctorUsageError('the protected URL must be an absolute http:// or https:// URL');
  if (url.username !== '' || url.password !== '') throw new DoctorUsageError('never put credentials in the URL: use --as and standard input');
  url.hash = '';
  if ((passwordFile !== undefined || passwordStdin) && as === undefined)
    throw new DoctorUsageError(`${passwordStdin ? '--password-stdin' : '--password-file'} goes with --as`);
  if (passwordFile !== undefined && passwordStdin) throw new DoctorUsageError('give --password-stdin or --password-file, not both');
  return { url, as, passwordFile, passwordStdin, publicPath, transport: { insecure, resolve, timeoutMs } };
}

async function readPassword(args: DoctorArgs, io: CliIo): Promise<string | null> {
  if (args.passwordFile !== undefined) {
    try {
      return (await io.readFile(args.passwordFile)).split(/\r?\n/)[0] ?? '';
    } catch {
      return null;
    }
  }
  if (io.interactive && !args.passwordStdin) return io.promptHidden(`Password for ${args.as}: `).catch(() => null);
  return (await io.readLines())[0] ?? '';
}

/** `portcullis doctor`: resolves the exit code (0 nothing failed, 1 a FAIL or no password, 2 a usage mistake). */
export async function doctorCommand(argv: readonly string[], io: CliIo, deps: DoctorDeps): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(DOCTOR_HELP);
    return 0;
  }
  let args: DoctorArgs;
  try {
    args = parse(argv);
  } catch (e) {
    if (!(e instanceof DoctorUsageError)) throw e;
    io.err(`portcullis: ${e.message} (see portcullis doctor --help)\n`);
    return 2;
  }
  let login: { username: string; password: string } | undefined;
  if (args.as !== undefined) {
    const password = await readPassword(args, io);
    if (password === null && args.passwordFile !== undefined) {
      io.err(`portcullis: cannot read the password file ${printable(args.passwordFile)}\n`);
      return 1;
    }
    if (password === null || password === '') {
      io.err(`portcullis: no password for ${printable(args.as)} (type it, pipe it on standard input, or give --password-file)\n`);
      return 1;
    }
    login = { username: args.as, password };
  }
  io.out(`Portcullis doctor: ${args.url.href}\n`);
  const findings: Finding[] = [];
  await diagnose({ url: args.url, login, publicPath: args.publicPath, marker: randomBytes(4).toString('hex') }, deps.transport(args.transport), (finding) => {
    findings.push(finding);
    io.out(formatFinding(finding));
  });
  io.out(summary(findings));
  return findings.some((f) => f.verdict === 'FAIL') ? 1 : 0;
}

function printable(s: string): string {
  const clean = s.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}...` : clean;
}

import { BcryptPasswordHasher } from '../adapters/crypto/bcrypt-password-hasher';
import { runCli } from '../adapters/cli/cli';
import { ProcessIo, type CliIo } from '../adapters/cli/cli-io';
import { socketProbeTransport } from '../adapters/cli/doctor/socket-probe-transport';
import { configWarnings, loadConfig, OPTIONS, secretFlagWarnings } from './config';
import { explain } from './explain';

/** The `portcullis` executable: the CLI, wired to this process's environment. */
export function runPortcullis(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo = new ProcessIo()): Promise<number> {
  return runCli(argv, io, {
    hasher: (cost) => new BcryptPasswordHasher(cost),
    // The gateway's modules load only when it is the command: account tooling starts faster without them.
    serve: (args) =>
      (require('./main') as typeof import('./main')).main(args, env).catch((e: unknown) => {
        io.err(`Portcullis failed to start: ${e instanceof Error ? e.message.split('\n')[0] : 'unknown error'}\n`);
        return 1;
      }),
    options: OPTIONS,
    doctor: { transport: socketProbeTransport },
    explain: (args, write) => explain(args, env, write),
    checkConfig: (args) => {
      const loaded = loadConfig({ env, argv: args });
      const flagWarnings = secretFlagWarnings(args);
      if (!loaded.ok) return { problems: loaded.problems, summary: [], demo: false, warnings: flagWarnings };
      const c = loaded.config;
      const summary = [`APP_URL ${c.appUrl}`];
      if (c.users.length > 0) summary.push(`USERS: ${c.users.length} account${c.users.length === 1 ? '' : 's'}`);
      if (c.usersFile !== null) summary.push(`USERS_FILE ${c.usersFile.path}: ${c.usersFile.entries.length} account${c.usersFile.entries.length === 1 ? '' : 's'} (watched for changes)`);
      summary.push(
        c.forwardAuthPort === null
          ? 'forward auth (/api/auth/*) on the public port: set FORWARD_AUTH_PORT to give it an internal listener'
          : `forward auth (/api/auth/*) only on ${c.forwardAuthAddress}:${c.forwardAuthPort}; the public port answers it 404`,
      );
      if (c.ldap !== null) summary.push(`LDAP ${c.ldap.url}, base ${c.ldap.baseDn}, filter ${c.ldap.searchFilter}`);
      return { problems: [], summary, demo: c.demo, warnings: [...flagWarnings, ...configWarnings(c)] };
    },
  });
}

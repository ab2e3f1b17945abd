import type { Server } from 'node:http';
import { loadConfig } from '../../src/composition/config';
import type { Overrides } from '../../src/composition/container';
import { createGateway, type Gateway } from '../../src/composition/gateway';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_SECRET } from './credentials';
import { tempDataDir } from './data-dir';

export interface RunningGateway {
  readonly url: string;
  readonly gateway: Gateway;
  close(): Promise<void>;
}

/** Starts the real gateway in this process on 127.0.0.1 with a free port and the given environment on top of sane test defaults. */
export async function startGateway(env: Record<string, string> = {}, overrides: Overrides = {}): Promise<RunningGateway> {
  const loaded = loadConfig({
    env: { APP_URL: 'https://auth.example.test', SECRET: TEST_SECRET, LOG_LEVEL: 'silent', ADDRESS: '127.0.0.1', PORT: '0', ...env },
  });
  if (!loaded.ok) throw new Error(`test config invalid: ${loaded.problems.join('; ')}`);
  const gateway = createGateway(loaded.config, overrides);
  const { server, port } = await gateway.listen(0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}`,
    gateway,
    close: async () => {
      await closeServer(server);
      await gateway.shutdown();
    },
  };
}

/**
 * {@link startGateway} with a users file (USERS_FILE) holding `yaml`, in a temp directory of its own
 * that goes when the gateway closes: the accounts only a file can describe (passkey-only ones, names).
 */
export async function startGatewayWithUsersFile(
  yaml: string,
  env: Record<string, string> = {},
  overrides: Overrides = {},
): Promise<RunningGateway & { readonly usersFile: string }> {
  const temp = tempDataDir('portcullis-users');
  const usersFile = join(temp.dir, 'users.yaml');
  writeFileSync(usersFile, yaml);
  try {
    const gw = await startGateway({ USERS_FILE: usersFile, ...env }, overrides);
    return {
      ...gw,
      usersFile,
      close: async () => {
        await gw.close();
        temp.remove();
      },
    };
  } catch (e) {
    temp.remove();
    throw e;
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** The `name=value` part of the first Set-Cookie for `name`, and its attributes. */
export function cookieFrom(res: Response, name: string): { value: string; attributes: string[] } | null {
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(';').map((s) => s.trim());
    if (pair.startsWith(`${name}=`)) return { value: pair.slice(name.length + 1), attributes };
  }
  return null;
}

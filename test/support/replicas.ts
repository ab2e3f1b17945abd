import type { Overrides } from '../../src/composition/container';
import { startGateway, type RunningGateway } from './server';
import { eventually } from './wait';

/**
 * True once every gateway answers its readiness check with 200 (within the usual wait): a replica on
 * a shared store loads what the others wrote (revocations, TOTP enrolments) before it says ready, and
 * a test that asks it earlier would race that load.
 */
export function allReady(...gateways: RunningGateway[]): Promise<boolean> {
  return eventually(async () => {
    for (const gw of gateways) if ((await fetch(`${gw.url}/api/ready`)).status !== 200) return false;
    return true;
  });
}

/**
 * Starts `count` replicas of one gateway in this process: the same environment, so the same shared
 * store (REDIS_URL or DATABASE_URL in `env`), and resolves once every one is ready; it fails (and
 * closes those it started) when one never is.
 */
export async function startReplicas(env: Record<string, string>, count = 2, overrides: Overrides = {}): Promise<RunningGateway[]> {
  const started: RunningGateway[] = [];
  for (let i = 0; i < count; i += 1) started.push(await startGateway(env, overrides));
  if (!(await allReady(...started))) {
    await stopReplicas(started);
    throw new Error(`the ${count} replicas never all answered ready`);
  }
  return started;
}

/** Closes the replicas that started (a failed `beforeAll` leaves some undefined), then the store server they share. */
export async function stopReplicas(gateways: readonly (RunningGateway | undefined)[], store?: { stop(): Promise<void> }): Promise<void> {
  await Promise.all(gateways.map((gw) => gw?.close()));
  await store?.stop();
}

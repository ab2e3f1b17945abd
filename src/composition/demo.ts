import { reachableAt } from '../adapters/http/first-app';
import type { Config } from '../config/load';

export const DEMO_USERNAME = 'demo';

/** host:port where a proxy on this machine asks the demo for forward auth: its own listener if set, else the public one. */
export function demoForwardAuth(config: Config): string {
  return config.forwardAuthPort !== null ? reachableAt(config.forwardAuthAddress, config.forwardAuthPort) : reachableAt(config.address, config.port);
}

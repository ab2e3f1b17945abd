import type { ReadinessCheck } from '../../application/readiness/readiness-check';

/** Whether this gateway still takes traffic: readiness turns to 503 as soon as a shutdown starts. */
export class GatewayLifecycle implements ReadinessCheck {
  readonly name = 'gateway';
  // A draining gateway takes no new requests, forward auth included.
  readonly gatesForwardAuth = true;
  private draining = false;

  get isDraining(): boolean {
    return this.draining;
  }

  /** From now on readiness fails, so the load balancer sends new requests elsewhere. */
  drain(): void {
    this.draining = true;
  }

  async check(): Promise<void> {
    if (this.draining) throw new Error('shutting down');
  }
}

import type { StepUpReferences } from '../../application/step-up/step-up-references';
import { stepUpMethodsOf, type StepUpRequest } from '../../domain/step-up';
import { AesGcmBox } from './aes-gcm-box';

/**
 * Seals step-up references with AES-256-GCM under their own key derived from SECRET (issue 33):
 * the login URL names the session, the account, the methods and the way back, and nobody can
 * write or alter one (a step-up asking for less than the rule did would be a bypass).
 */
export class AesGcmStepUpReferences implements StepUpReferences {
  private readonly box: AesGcmBox;

  constructor(secret: string) {
    this.box = new AesGcmBox(secret, 'step-up', 's1');
  }

  seal(r: StepUpRequest): string {
    return this.box.seal([r.sessionId, r.username, r.methods, r.maxAge, r.returnTo, r.expiresAt]);
  }

  unseal(reference: string): StepUpRequest | null {
    const p = this.box.open(reference);
    if (!Array.isArray(p) || p.length !== 6) return null;
    const [sessionId, username, rawMethods, maxAge, returnTo, expiresAt] = p as unknown[];
    const methods = stepUpMethodsOf(rawMethods);
    if (typeof sessionId !== 'string' || typeof username !== 'string' || methods === null || typeof expiresAt !== 'number') return null;
    if ((maxAge !== null && typeof maxAge !== 'number') || (returnTo !== null && typeof returnTo !== 'string')) return null;
    return Object.freeze({ sessionId, username, methods: Object.freeze(methods), maxAge, returnTo, expiresAt });
  }
}

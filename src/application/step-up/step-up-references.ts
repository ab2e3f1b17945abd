import type { StepUpRequest } from '../../domain/step-up';

/** Turns a step-up under way into the short, tamper-proof reference of a login URL (`?step_up=`) and back. */
export interface StepUpReferences {
  /** Seals `request`; the reference cannot be altered or made by anyone without the gateway's secret. */
  seal(request: StepUpRequest): string;
  /** Opens a reference; null for anything tampered, foreign, malformed or of an unknown version. Never throws. Does not check expiry. */
  unseal(reference: string): StepUpRequest | null;
}

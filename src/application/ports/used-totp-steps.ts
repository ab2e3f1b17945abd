/** Remembers which TOTP time steps each account has already used, so a code works once. */
export interface UsedTotpSteps {
  /**
   * Atomically claims `step` for `username`. Resolves true the first time, false when that step
   * (or a later one) was already claimed. Claims may be forgotten after `untilMs`.
   */
  claim(username: string, step: number, untilMs: number): Promise<boolean>;
}

/** Flows whose callback has already been handled, so a flow cookie works once only. */
export interface UsedOAuthFlows {
  /**
   * Marks flow `id` used until `untilMs` (its expiry; it may be forgotten after). Resolves true
   * when this call was the first to use it, false when it had been used already. Atomic: of
   * two concurrent calls for one id, exactly one resolves true.
   */
  use(id: string, untilMs: number): Promise<boolean>;
}

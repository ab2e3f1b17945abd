import { IssueHandoffCodeUseCase, MAX_HANDOFF_CODE_LIFETIME_MS, type HandoffSettings } from '../application/handoff/issue-handoff-code';
import { RedeemHandoffCodeUseCase } from '../application/handoff/redeem-handoff-code';
import type { TypedContainer } from './binding';
import type { Config } from '../config/load';
import { gatewayDomainsOf } from './cookie-domain';
import { bindStore } from './state';
import { TOKENS } from './tokens';

/**
 * One login across several root domains (issue 17): the hand-off codes (short-lived state: Redis,
 * else PostgreSQL, else the embedded file, else memory) and the two hand-off use cases.
 */
export function bindHandoff(c: TypedContainer, config: Pick<Config, 'appUrls'>): void {
  c.bind(TOKENS.HandoffSettings, (): HandoffSettings => ({
    secondaries: gatewayDomainsOf(config.appUrls.slice(1)).map((g) => g.domain),
    codeLifetimeMs: MAX_HANDOFF_CODE_LIFETIME_MS,
  }));
  bindStore(c, TOKENS.HandoffCodes, 'short-lived', (s) => s.handoffCodes());
  c.bindClass(TOKENS.IssueHandoffCodeUseCase, IssueHandoffCodeUseCase, [
    TOKENS.RequestAuthenticator,
    TOKENS.HandoffCodes,
    TOKENS.IdGenerator,
    TOKENS.Clock,
    TOKENS.SessionSealer,
    TOKENS.HandoffSettings,
    TOKENS.AuditLog,
  ]);
  c.bindClass(TOKENS.RedeemHandoffCodeUseCase, RedeemHandoffCodeUseCase, [
    TOKENS.RequestAuthenticator,
    TOKENS.HandoffCodes,
    TOKENS.Clock,
    TOKENS.HandoffSettings,
    TOKENS.AuditLog,
  ]);
}

import { AesGcmStepUpReferences } from '../adapters/crypto/aes-gcm-step-up-references';
import type { StepUpPrompt } from '../application/forward-auth/authorize-proxy-request';
import type { Reauthentication } from '../application/passkeys/reauthentication';
import type { Clock } from '../application/ports/clock';
import { CompleteStepUpUseCase } from '../application/step-up/complete-step-up';
import { DescribeStepUpUseCase } from '../application/step-up/describe-step-up';
import type { StepUpReferences } from '../application/step-up/step-up-references';
import { StepUpSessions } from '../application/step-up/step-up-sessions';
import type { TypedContainer } from './binding';
import type { Config } from '../config/load';
import { TOKENS } from './tokens';

/**
 * Step-up (issue 33): the sealed references of the login URL (under their own key from SECRET),
 * what forward auth needs to send a session to one, and the login page's two use cases. A passkey
 * step-up uses the passkeys' re-authentication, only with PASSKEYS on.
 */
export function bindStepUp(c: TypedContainer, config: Pick<Config, 'secret' | 'passkeys'>): void {
  c.bind(TOKENS.StepUpReferences, (): StepUpReferences => new AesGcmStepUpReferences(config.secret));
  c.bind(TOKENS.StepUpPrompt, (references: StepUpReferences, clock: Clock): StepUpPrompt => ({ references, clock }), [TOKENS.StepUpReferences, TOKENS.Clock]);
  c.bindClass(TOKENS.StepUpSessions, StepUpSessions, [TOKENS.StepUpReferences, TOKENS.Clock, TOKENS.PasskeyCredentialsIfOn]);
  // Resolved only with PASSKEYS on, like the passkey use cases.
  c.bind(TOKENS.StepUpReauthentication, (): Reauthentication | null => (config.passkeys ? c.get(TOKENS.Reauthentication) : null));
  c.bindClass(TOKENS.DescribeStepUpUseCase, DescribeStepUpUseCase, [TOKENS.PasskeyOwners, TOKENS.StepUpSessions]);
  c.bindClass(TOKENS.CompleteStepUpUseCase, CompleteStepUpUseCase, [
    TOKENS.PasskeyOwners,
    TOKENS.StepUpSessions,
    TOKENS.CredentialCheck,
    TOKENS.SessionIssuer,
    TOKENS.Clock,
    TOKENS.StepUpReauthentication,
  ]);
}

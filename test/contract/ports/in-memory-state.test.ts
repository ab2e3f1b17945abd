import { InMemoryLoginAttempts } from '../../../src/adapters/state/in-memory-login-attempts';
import { InMemoryRevokedSessions } from '../../../src/adapters/state/in-memory-revoked-sessions';
import { InMemoryUsedOAuthFlows } from '../../../src/adapters/state/in-memory-used-oauth-flows';
import { InMemoryUsedTotpSteps } from '../../../src/adapters/state/in-memory-used-totp-steps';
import { loginAttemptsContract } from './login-attempts.contract';
import { revokedSessionsContract } from './revoked-sessions.contract';
import { usedOAuthFlowsContract } from './used-oauth-flows.contract';
import { usedTotpStepsContract } from './used-totp-steps.contract';

loginAttemptsContract('InMemoryLoginAttempts', () => new InMemoryLoginAttempts(1000));
revokedSessionsContract('InMemoryRevokedSessions', (clock) => new InMemoryRevokedSessions(clock));
usedTotpStepsContract('InMemoryUsedTotpSteps', (clock) => new InMemoryUsedTotpSteps(clock));
usedOAuthFlowsContract('InMemoryUsedOAuthFlows', (clock) => new InMemoryUsedOAuthFlows(clock));

import { InMemoryLoginAttempts } from '../../../src/adapters/state/in-memory-login-attempts';
import { InMemoryRevokedSessions } from '../../../src/adapters/state/in-memory-revoked-sessions';
import { InMemoryUsedTotpSteps } from '../../../src/adapters/state/in-memory-used-totp-steps';
import { loginAttemptsContract } from './login-attempts.contract';
import { revokedSessionsContract } from './revoked-sessions.contract';
import { usedTotpStepsContract } from './used-totp-steps.contract';

loginAttemptsContract('InMemoryLoginAttempts', () => new InMemoryLoginAttempts(1000));
revokedSessionsContract('InMemoryRevokedSessions', (clock) => new InMemoryRevokedSessions(clock));
usedTotpStepsContract('InMemoryUsedTotpSteps', (clock) => new InMemoryUsedTotpSteps(clock));

import { InMemoryLoginAttempts } from '../../../../src/adapters/state/memory/in-memory-login-attempts';
import { concurrentGuessesSuite } from '../../../support/concurrent-guesses';

concurrentGuessesSuite('in memory', async () => new InMemoryLoginAttempts(1000));

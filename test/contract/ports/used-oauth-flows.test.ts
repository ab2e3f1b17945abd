import { InMemoryUsedOAuthFlows } from '../../../src/adapters/state/memory/in-memory-used-oauth-flows';
import { usedOAuthFlowsContract } from './used-oauth-flows.contract';

usedOAuthFlowsContract('InMemoryUsedOAuthFlows', ({ clock }) => new InMemoryUsedOAuthFlows(clock));

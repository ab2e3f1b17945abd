import { InMemoryAccessTokens } from '../../../src/adapters/state/memory/in-memory-access-tokens';
import { accessTokensContract } from './access-tokens.contract';

accessTokensContract('InMemoryAccessTokens', () => new InMemoryAccessTokens());

import { InMemoryAccessTokens } from '../../../src/adapters/state/memory/in-memory-access-tokens';
import { memoryStores } from '../../../src/adapters/state/memory/memory-state';
import { FixedClock } from '../../support/fakes';
import { accessTokensContract } from './access-tokens.contract';

accessTokensContract('InMemoryAccessTokens', () => new InMemoryAccessTokens());

describe('the memory state bundle', () => {
  it('builds an access token store of its own for each call', () => {
    const stores = memoryStores({ clock: new FixedClock() });
    const [a, b] = [stores.accessTokens(), stores.accessTokens()];
    expect(a).toBeInstanceOf(InMemoryAccessTokens);
    expect(a).not.toBe(b);
  });
});

import { InMemoryPasskeyCredentials } from '../../../src/adapters/state/memory/in-memory-passkey-credentials';
import { aPasskey, passkeyCredentialsContract } from './passkey-credentials.contract';

passkeyCredentialsContract('InMemoryPasskeyCredentials', () => new InMemoryPasskeyCredentials());

describe('InMemoryPasskeyCredentials bound', () => {
  it('refuses new passkeys past its capacity rather than forgetting old ones', async () => {
    const store = new InMemoryPasskeyCredentials(2);
    const first = aPasskey('a');
    expect(await store.add(first, 5)).toBe(true);
    expect(await store.add(aPasskey('b'), 5)).toBe(true);
    expect(await store.add(aPasskey('c'), 5)).toBe(false);
    expect(await store.find(first.id)).not.toBeNull();
  });
});

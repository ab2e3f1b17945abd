import { ClientAddressResolver } from '../../../src/adapters/http/client-address';
import { buildTrustedProxies } from '../../../src/config/server';
import { DEFAULT_TRUSTED_PROXIES } from '../../../src/config/server';

const resolverFor = (cidrs: readonly string[]): ClientAddressResolver => new ClientAddressResolver(buildTrustedProxies(cidrs).list);

describe('ClientAddressResolver under the default TRUSTED_PROXIES', () => {
  const resolver = resolverFor(DEFAULT_TRUSTED_PROXIES);

  it('trusts only loopback by default', () => {
    expect(DEFAULT_TRUSTED_PROXIES).toEqual(['127.0.0.0/8', '::1/128']);
  });

  it('does not let a LAN, VPN or pod client talking to the gateway directly choose its address', () => {
    for (const forged of ['10.20.0.1', '192.168.1.10', '203.0.113.50', '127.0.0.1', '10.20.0.1, 10.20.0.2']) {
      expect(resolver.resolve('10.9.0.7', forged)).toBe('10.9.0.7');
      expect(resolver.resolve('::ffff:10.9.0.7', forged)).toBe('10.9.0.7');
      expect(resolver.resolve('fd00::7', forged)).toBe('fd00::7');
    }
  });

  it('does not let a LAN client behind a proxy on the same host choose its address by prefixing X-Forwarded-For', () => {
    // The proxy appends the address it saw: what the client sent stays on the left.
    expect(resolver.resolve('127.0.0.1', '10.20.0.1, 10.9.0.7')).toBe('10.9.0.7');
    expect(resolver.resolve('::1', '203.0.113.50, 10.9.0.7')).toBe('10.9.0.7');
    expect(resolver.resolve('127.0.0.1', '10.20.0.1, 192.168.1.10, 10.9.0.7')).toBe('10.9.0.7');
  });
});

describe('ClientAddressResolver', () => {
  it('takes the socket peer when the peer is not a trusted proxy', () => {
    const resolver = resolverFor(['192.0.2.1']);
    expect(resolver.resolve('203.0.113.9', '10.9.0.1')).toBe('203.0.113.9');
    expect(resolver.resolve('203.0.113.9', undefined)).toBe('203.0.113.9');
  });

  it('reads X-Forwarded-For from the right, skipping trusted proxies, and takes the first untrusted address', () => {
    const resolver = resolverFor(['127.0.0.0/8', '10.0.0.2']);
    expect(resolver.resolve('127.0.0.1', '198.51.100.1, 203.0.113.5, 10.0.0.2')).toBe('203.0.113.5');
    expect(resolver.resolve('127.0.0.1', ['198.51.100.1', '203.0.113.5, 10.0.0.2'])).toBe('203.0.113.5');
    expect(resolver.resolve('127.0.0.1', '203.0.113.5')).toBe('203.0.113.5');
  });

  it('takes the left-most hop when every hop is a trusted proxy (the request started at a proxy)', () => {
    const resolver = resolverFor(['127.0.0.0/8', '10.0.0.2']);
    expect(resolver.resolve('127.0.0.1', '10.0.0.2')).toBe('10.0.0.2');
    expect(resolver.resolve('127.0.0.1', '')).toBe('127.0.0.1');
  });

  it('refuses a chain that holds something other than an address before the first untrusted hop', () => {
    const resolver = resolverFor(['127.0.0.0/8']);
    expect(resolver.resolve('127.0.0.1', 'unknown')).toBeNull();
    expect(resolver.resolve('127.0.0.1', 'junk, 203.0.113.5')).toBe('203.0.113.5');
  });

  it('resolves null without a socket address', () => {
    expect(resolverFor(['127.0.0.0/8']).resolve(undefined, '203.0.113.5')).toBeNull();
  });
});

describe('ClientAddressResolver remembering its verdicts', () => {
  it('answers a repeated address as the trusted list does, trusted or not, also after the memory filled and was cleared', () => {
    const { list } = buildTrustedProxies(['127.0.0.0/8', '10.0.0.2']);
    const check = jest.spyOn(list, 'check');
    const resolver = new ClientAddressResolver(list, 8);
    for (let round = 0; round < 3; round += 1) {
      expect(resolver.resolve('127.0.0.1', '203.0.113.5')).toBe('203.0.113.5');
      expect(resolver.resolve('127.0.0.1', '198.51.100.1, 10.0.0.2')).toBe('198.51.100.1');
      expect(resolver.resolve('203.0.113.9', '10.0.0.2')).toBe('203.0.113.9');
    }
    // Five addresses were asked about (two peers, three hops), each once: the memory held them all.
    expect(check).toHaveBeenCalledTimes(5);
    // A client that sends a new X-Forwarded-For each time fills the memory; it is cleared, not grown, and still right.
    for (let i = 1; i <= 20; i += 1) expect(resolver.resolve('127.0.0.1', `198.51.100.${i}`)).toBe(`198.51.100.${i}`);
    expect(resolver.resolve('127.0.0.1', '10.0.0.2')).toBe('10.0.0.2');
    expect(resolver.resolve('10.0.0.2', '203.0.113.5')).toBe('203.0.113.5');
    expect((resolver as unknown as { verdicts: Map<string, boolean> }).verdicts.size).toBeLessThanOrEqual(8);
  });

  it('remembers a chain apart from the peer that sent it: a chain without hops resolves to each peer itself', () => {
    const resolver = new ClientAddressResolver(buildTrustedProxies(['127.0.0.0/8']).list, 8);
    for (let round = 0; round < 2; round += 1) {
      expect(resolver.resolve('127.0.0.1', '')).toBe('127.0.0.1');
      expect(resolver.resolve('127.0.0.2', '')).toBe('127.0.0.2');
      expect(resolver.resolve('127.0.0.3', ' , ')).toBe('127.0.0.3');
      expect(resolver.resolve('127.0.0.1', 'unknown')).toBeNull();
      expect(resolver.resolve('127.0.0.2', '127.0.0.9')).toBe('127.0.0.9');
      // An untrusted peer's chain is never read, remembered or not.
      expect(resolver.resolve('203.0.113.9', '127.0.0.9')).toBe('203.0.113.9');
      const long = `${'198.51.100.1, '.repeat(30)}203.0.113.5`;
      expect(resolver.resolve('127.0.0.1', long)).toBe('203.0.113.5');
    }
    expect((resolver as unknown as { chains: Map<string, unknown> }).chains.size).toBeLessThanOrEqual(8);
  });
});

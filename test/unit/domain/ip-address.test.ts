import { addressBlock, compileIpRanges, describeIpRanges, inRanges, parseIpInto } from '../../../src/domain/ip-address';

function family(text: string): number {
  return parseIpInto(text, new Uint32Array(4));
}

function contains(cidrs: string[], ip: string): boolean {
  const { set, problems } = compileIpRanges(cidrs);
  expect(problems).toEqual([]);
  const addr = new Uint32Array(4);
  const f = parseIpInto(ip, addr);
  if (f === 0) throw new Error(`test address ${ip} does not parse`);
  return inRanges(set, f, addr);
}

describe('IP addresses', () => {
  it.each(['0.0.0.0', '203.0.113.7', '255.255.255.255'])('reads %s as IPv4', (ip) => expect(family(ip)).toBe(4));
  it.each(['::', '::1', '2001:db8::1', 'fe80::1%eth0', '2001:0db8:0000:0000:0000:ff00:0042:8329', '64:ff9b::192.0.2.33'])('reads %s as IPv6', (ip) =>
    expect(family(ip)).toBe(6),
  );
  it('reads an IPv4-mapped IPv6 address as the IPv4 address it carries', () => expect(family('::ffff:203.0.113.7')).toBe(4));
  it.each([
    '',
    'unknown',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.4 ',
    ' 1.2.3.4',
    '1..2.3',
    '::1::',
    '1:2:3:4:5:6:7:8:9',
    '12345::',
    'g::1',
    ':1',
    '1:',
    '[::1]',
    '1.2.3.4/32',
    '%eth0',
  ])('refuses %j', (ip) => expect(family(ip)).toBe(0));

  it('matches IPv4 CIDRs by prefix', () => {
    expect(contains(['203.0.113.0/24'], '203.0.113.200')).toBe(true);
    expect(contains(['203.0.113.0/24'], '203.0.114.1')).toBe(false);
    expect(contains(['10.9.0.0/16'], '10.9.255.1')).toBe(true);
    expect(contains(['10.9.0.0/16'], '10.10.0.1')).toBe(false);
    expect(contains(['0.0.0.0/0'], '8.8.8.8')).toBe(true);
    expect(contains(['192.0.2.1'], '192.0.2.1')).toBe(true);
    expect(contains(['192.0.2.1'], '192.0.2.2')).toBe(false);
  });

  it('ignores host bits below the prefix', () => expect(contains(['10.9.1.2/16'], '10.9.200.3')).toBe(true));

  it('matches IPv6 CIDRs by prefix', () => {
    expect(contains(['2001:db8::/32'], '2001:db8:ffff::1')).toBe(true);
    expect(contains(['2001:db8::/32'], '2001:db9::1')).toBe(false);
    expect(contains(['2001:db8:0:1::/64'], '2001:db8:0:1:ffff:ffff:ffff:ffff')).toBe(true);
    expect(contains(['2001:db8:0:1::/64'], '2001:db8:0:2::')).toBe(false);
    expect(contains(['2001:db8::/33'], '2001:db8:8000::1')).toBe(false);
    expect(contains(['::1'], '::1')).toBe(true);
    expect(contains(['fc00::/7'], 'fd12::1')).toBe(true);
  });

  it('never lets an IPv4 range match an IPv6 client or the reverse', () => {
    expect(contains(['0.0.0.0/0'], '2001:db8::1')).toBe(false);
    expect(contains(['2001:db8::/32'], '203.0.113.1')).toBe(false);
  });

  it('matches an IPv4-mapped client against IPv4 ranges and mapped ranges against IPv4 clients', () => {
    expect(contains(['203.0.113.0/24'], '::ffff:203.0.113.9')).toBe(true);
    expect(contains(['::ffff:203.0.113.0/120'], '203.0.113.9')).toBe(true);
    expect(contains(['::/0'], '203.0.113.9')).toBe(true);
  });

  it('reports each entry that is not an address or CIDR', () => {
    const { problems, set } = compileIpRanges(['10.0.0.0/8', '10.0.0.0/33', 'nope', '2001:db8::/129', '1.2.3.4/x', '1.2.3.4/8/8']);
    expect(problems).toHaveLength(5);
    expect(set.size).toBe(1);
  });
});

describe('addressBlock', () => {
  it('takes an IPv4 address as its own block, also when IPv4-mapped', () => {
    expect(addressBlock('198.51.100.7')).toBe('198.51.100.7');
    expect(addressBlock('::ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  it('takes the /64 of an IPv6 address, however it is written', () => {
    expect(addressBlock('2001:db8:1:2::7')).toBe('2001:db8:1:2::/64');
    expect(addressBlock('2001:0DB8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(addressBlock('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressBlock('2001:db8:1:3::7')).not.toBe(addressBlock('2001:db8:1:2::7'));
  });

  it('leaves text that is no address as it is', () => {
    expect(addressBlock('unknown')).toBe('unknown');
    expect(addressBlock('')).toBe('');
  });
});

describe('describeIpRanges', () => {
  it('writes each compiled range back as CIDR text, bits below the prefix cleared, IPv4 first', () => {
    const { set } = compileIpRanges(['2001:db8::1/32', '10.9.1.2/16', '192.0.2.7', 'fe80::/10']);
    expect(describeIpRanges(set)).toEqual(['10.9.0.0/16', '192.0.2.7/32', '2001:db8:0:0:0:0:0:0/32', 'fe80:0:0:0:0:0:0:0/10']);
  });

  it('writes nothing for an empty set', () => {
    expect(describeIpRanges(compileIpRanges([]).set)).toEqual([]);
  });
});

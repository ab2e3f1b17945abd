/**
 * IPv4 and IPv6 addresses and CIDR ranges, parsed by hand so the domain needs no `node:net`.
 * An address is four 32-bit words (IPv4 uses the first word only); matching is word-wise masking.
 */

export type IpFamily = 4 | 6;

/**
 * Parses `text` into `out` (at least 4 words). Returns the family, or 0 when it is not an address.
 * IPv4-mapped IPv6 (`::ffff:192.0.2.1`) is read as the IPv4 address it carries, so one rule
 * covers both ways a dual-stack socket reports a client. A zone (`fe80::1%eth0`) is ignored.
 * Leading zeros in IPv4 octets are refused: some parsers read them as octal.
 */
export function parseIpInto(text: string, out: Uint32Array): 0 | IpFamily {
  const n = text.length;
  if (n === 0 || n > 64) return 0;
  if (text.indexOf(':') === -1) {
    const v4 = parseIpv4(text, 0, n);
    if (v4 < 0) return 0;
    out[0] = v4;
    out[1] = 0;
    out[2] = 0;
    out[3] = 0;
    return 4;
  }
  const zone = text.indexOf('%');
  const end = zone === -1 ? n : zone;
  if (zone === 0 || zone === n - 1) return 0;
  if (!parseIpv6(text, end, out)) return 0;
  if (out[0] === 0 && out[1] === 0 && out[2] === 0xffff) {
    out[0] = out[3];
    out[1] = 0;
    out[2] = 0;
    out[3] = 0;
    return 4;
  }
  return 6;
}

// Scratch for addressBlock; parsing is synchronous, so one buffer serves every call.
const BLOCK_WORDS = new Uint32Array(4);

/**
 * The block of addresses one client is taken to hold, as text: an IPv4 address itself (`/32`), an
 * IPv6 address's `/64` (what one subscriber, host or container is routinely given, so one client
 * can use countless addresses of it). IPv4-mapped IPv6 counts as the IPv4 address; text that is no
 * address is its own block.
 */
export function addressBlock(text: string): string {
  const family = parseIpInto(text, BLOCK_WORDS);
  if (family === 4) {
    const v = BLOCK_WORDS[0];
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
  }
  if (family === 6) {
    const [a, b] = BLOCK_WORDS;
    return `${(a >>> 16).toString(16)}:${(a & 0xffff).toString(16)}:${(b >>> 16).toString(16)}:${(b & 0xffff).toString(16)}::/64`;
  }
  return text;
}

/** The address as a number, or -1. Only `d.d.d.d` with 0–255 and no leading zeros. */
function parseIpv4(s: string, start: number, end: number): number {
  let value = 0;
  let octets = 0;
  let i = start;
  while (i <= end) {
    let digits = 0;
    let octet = 0;
    const first = i;
    while (i < end) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      octet = octet * 10 + (c - 48);
      digits += 1;
      i += 1;
    }
    if (digits === 0 || digits > 3 || octet > 255 || (digits > 1 && s.charCodeAt(first) === 48)) return -1;
    value = value * 256 + octet;
    octets += 1;
    if (i === end) break;
    if (s.charCodeAt(i) !== 46 || octets === 4) return -1;
    i += 1;
  }
  return octets === 4 ? value : -1;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

// Scratch for the eight 16-bit groups; parsing is synchronous, so one buffer serves every call.
const GROUPS = new Uint16Array(8);

function parseIpv6(s: string, end: number, out: Uint32Array): boolean {
  let count = 0;
  let gap = -1;
  let i = 0;
  if (s.charCodeAt(0) === 58) {
    if (s.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
    if (i === end) {
      out[0] = out[1] = out[2] = out[3] = 0;
      return true;
    }
  }
  while (i < end) {
    if (count === 8) return false;
    // An embedded IPv4 address takes the last two groups.
    let j = i;
    let sawDot = false;
    while (j < end && s.charCodeAt(j) !== 58) {
      if (s.charCodeAt(j) === 46) sawDot = true;
      j += 1;
    }
    if (sawDot) {
      if (j !== end || count > 6) return false;
      const v4 = parseIpv4(s, i, end);
      if (v4 < 0) return false;
      GROUPS[count++] = Math.floor(v4 / 65536);
      GROUPS[count++] = v4 & 0xffff;
      break;
    }
    const len = j - i;
    if (len === 0 || len > 4) return false;
    let group = 0;
    for (let k = i; k < j; k += 1) {
      const h = hexValue(s.charCodeAt(k));
      if (h < 0) return false;
      group = group * 16 + h;
    }
    GROUPS[count++] = group;
    i = j;
    if (i === end) break;
    // i is at ':'
    if (s.charCodeAt(i + 1) === 58) {
      if (gap !== -1) return false;
      gap = count;
      i += 2;
    } else {
      i += 1;
      if (i === end) return false;
    }
  }
  if (gap === -1) {
    if (count !== 8) return false;
  } else {
    if (count > 7) return false;
    const shift = 8 - count;
    for (let k = count - 1; k >= gap; k -= 1) GROUPS[k + shift] = GROUPS[k];
    for (let k = gap; k < gap + shift; k += 1) GROUPS[k] = 0;
  }
  for (let w = 0; w < 4; w += 1) out[w] = ((GROUPS[2 * w] << 16) | GROUPS[2 * w + 1]) >>> 0;
  return true;
}

/** A set of CIDR ranges, compiled once: per family a flat array of network words followed by mask words. */
export interface IpRangeSet {
  /** Pairs `[network, mask]` for IPv4. */
  readonly v4: Uint32Array;
  /** Groups of eight words `[n0..n3, m0..m3]` for IPv6. */
  readonly v6: Uint32Array;
  readonly size: number;
}

export const EMPTY_RANGES: IpRangeSet = Object.freeze({ v4: new Uint32Array(0), v6: new Uint32Array(0), size: 0 });

function maskWord(prefix: number, word: number): number {
  const bits = Math.min(32, Math.max(0, prefix - word * 32));
  return bits === 0 ? 0 : bits === 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0;
}

/**
 * Compiles addresses and CIDRs (`203.0.113.0/24`, `2001:db8::/32`, a bare address). Bits below the
 * prefix are ignored (`10.9.1.2/16` means `10.9.0.0/16`). Returns the set and one problem per bad entry.
 */
export function compileIpRanges(entries: readonly string[]): { set: IpRangeSet; problems: string[] } {
  const v4: number[] = [];
  const v6: number[] = [];
  const problems: string[] = [];
  const addr = new Uint32Array(4);
  for (const raw of entries) {
    const text = raw.trim();
    const slash = text.indexOf('/');
    const host = slash === -1 ? text : text.slice(0, slash);
    const family = host.indexOf('%') === -1 ? parseIpInto(host, addr) : 0;
    const maxBits = host.indexOf(':') === -1 ? 32 : 128;
    let prefix = maxBits;
    if (slash !== -1) {
      const bits = text.slice(slash + 1);
      prefix = /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
    }
    if (family === 0 || prefix < 0 || prefix > maxBits) {
      problems.push(`"${raw}" is not an IP address or CIDR`);
      continue;
    }
    if (family === 4) {
      // An IPv4-mapped IPv6 range covers the IPv4 addresses it maps.
      const p = maxBits === 128 ? prefix - 96 : prefix;
      if (p < 0) {
        problems.push(`"${raw}" is wider than the IPv4-mapped range it starts in`);
        continue;
      }
      const m = maskWord(p, 0);
      v4.push((addr[0] & m) >>> 0, m);
    } else {
      const masks = [maskWord(prefix, 0), maskWord(prefix, 1), maskWord(prefix, 2), maskWord(prefix, 3)];
      const net = [0, 1, 2, 3].map((w) => (addr[w] & masks[w]) >>> 0);
      v6.push(...net, ...masks);
      // A range wide enough to hold ::ffff:0:0/96 holds every IPv4 client too (they are read as IPv4).
      if (prefix <= 96 && net[0] === 0 && net[1] === 0 && net[2] === (0xffff & masks[2]) >>> 0) v4.push(0, 0);
    }
  }
  return { set: { v4: Uint32Array.from(v4), v6: Uint32Array.from(v6), size: v4.length / 2 + v6.length / 8 }, problems };
}

/** True when the parsed address (`family` and words from parseIpInto) lies in one of the ranges. */
export function inRanges(set: IpRangeSet, family: IpFamily, addr: Uint32Array): boolean {
  if (family === 4) {
    const a = addr[0];
    const list = set.v4;
    for (let i = 0; i < list.length; i += 2) if ((a & list[i + 1]) >>> 0 === list[i]) return true;
    return false;
  }
  const list = set.v6;
  for (let i = 0; i < list.length; i += 8) {
    if (
      (addr[0] & list[i + 4]) >>> 0 === list[i] &&
      (addr[1] & list[i + 5]) >>> 0 === list[i + 1] &&
      (addr[2] & list[i + 6]) >>> 0 === list[i + 2] &&
      (addr[3] & list[i + 7]) >>> 0 === list[i + 3]
    ) {
      return true;
    }
  }
  return false;
}

function prefixOf(masks: ArrayLike<number>): number {
  let bits = 0;
  for (let i = 0; i < masks.length; i += 1) {
    let m = masks[i] >>> 0;
    while (m !== 0) {
      bits += m & 1;
      m >>>= 1;
    }
  }
  return bits;
}

/**
 * The ranges of a compiled set as CIDR text (`10.9.0.0/16`, `2001:db8:0:0:0:0:0:0/32`), IPv4 first,
 * for people to read (the admin console): the networks as compiled, bits below the prefix cleared.
 */
export function describeIpRanges(set: IpRangeSet): string[] {
  const out: string[] = [];
  for (let i = 0; i < set.v4.length; i += 2) {
    const n = set.v4[i];
    out.push(`${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}/${prefixOf([set.v4[i + 1]])}`);
  }
  for (let i = 0; i < set.v6.length; i += 8) {
    const groups: string[] = [];
    for (let w = 0; w < 4; w += 1) groups.push(((set.v6[i + w] >>> 16) & 0xffff).toString(16), (set.v6[i + w] & 0xffff).toString(16));
    out.push(`${groups.join(':')}/${prefixOf(set.v6.subarray(i + 4, i + 8))}`);
  }
  return out;
}

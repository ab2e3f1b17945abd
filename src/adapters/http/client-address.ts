import { isIP, type BlockList } from 'node:net';

/** Strips the IPv4-in-IPv6 prefix a dual-stack socket reports, so `::ffff:10.0.0.1` is `10.0.0.1`. */
function plain(ip: string): string {
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

function typeOf(ip: string): 'ipv4' | 'ipv6' | null {
  const v = isIP(ip);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : null;
}

/** A chain without a single hop (empty, or only commas) resolves to the peer that sent it. */
const THE_PEER = Symbol('the peer');
/** Longer chains are read every time rather than remembered (the memory stays small whatever clients send). */
const MAX_REMEMBERED_CHAIN = 256;

/**
 * The client's address: the socket peer, unless that peer is a trusted proxy, in which case the
 * right-most address of `X-Forwarded-For` that is not itself a trusted proxy. Resolves null when
 * the chain holds something that is not an address (the caller must not treat that as trusted).
 */
export class ClientAddressResolver {
  /**
   * Verdicts already reached, by address text. `BlockList.check` builds a native `SocketAddress`
   * for every call (about 2 µs here, most of it paid later by the garbage collector), and behind
   * a proxy every forward-auth request asks twice (the peer, then its `X-Forwarded-For` hop) about
   * the same few addresses. The list never changes after start-up, so a verdict never goes stale;
   * the map is bounded (cleared when full) because `X-Forwarded-For` is the client's to choose.
   */
  private readonly verdicts = new Map<string, boolean>();
  /** What each `X-Forwarded-For` chain resolved to behind a trusted peer (bounded like the verdicts). */
  private readonly chains = new Map<string, string | null | typeof THE_PEER>();

  constructor(
    private readonly trusted: BlockList,
    private readonly maxVerdicts = 1024,
  ) {}

  resolve(socketAddress: string | undefined, forwardedFor: string | string[] | undefined): string | null {
    if (socketAddress === undefined) return null;
    const peer = plain(socketAddress);
    if (forwardedFor === undefined || !this.isTrusted(peer)) return peer;
    const chain = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
    // A proxy sends the same chain for every request of a client: read each (short) chain once.
    let resolved = chain.length <= MAX_REMEMBERED_CHAIN ? this.chains.get(chain) : undefined;
    if (resolved === undefined) {
      resolved = this.walk(chain);
      if (chain.length <= MAX_REMEMBERED_CHAIN) {
        if (this.chains.size >= this.maxVerdicts) this.chains.clear();
        this.chains.set(chain, resolved);
      }
    }
    return resolved === THE_PEER ? peer : resolved;
  }

  /** The right-most hop that is not a trusted proxy, else the left-most hop, else the peer itself; null for a hop that is no address. */
  private walk(chain: string): string | null | typeof THE_PEER {
    let current: string | typeof THE_PEER = THE_PEER;
    const hops = chain.split(',');
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      const hop = plain(hops[i].trim());
      if (hop === '') continue;
      if (typeOf(hop) === null) return null;
      current = hop;
      if (!this.isTrusted(hop)) return hop;
    }
    return current;
  }

  private isTrusted(ip: string): boolean {
    let verdict = this.verdicts.get(ip);
    if (verdict === undefined) {
      const type = typeOf(ip);
      verdict = type !== null && this.trusted.check(ip, type);
      if (this.verdicts.size >= this.maxVerdicts) this.verdicts.clear();
      this.verdicts.set(ip, verdict);
    }
    return verdict;
  }
}

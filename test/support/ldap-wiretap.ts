import { connect, createServer, type Server, type Socket } from 'node:net';

/** The StartTLS extended operation's OID, as it appears in the request's bytes. */
export const START_TLS_OID = '1.3.6.1.4.1.1466.20037';

/**
 * A TCP relay on a free loopback port in front of an LDAP server that keeps every byte the client
 * sent, so a test can show what crossed the network in the clear (a password in plain text would be
 * found as it is; inside TLS it is not). With {@link refuseStartTls} it plays a man in the middle
 * who answers every StartTLS request with an error instead of passing it on, to push the client
 * into talking in plain text.
 */
export class LdapWiretap {
  private readonly chunks: Buffer[] = [];
  private readonly sockets = new Set<Socket>();
  /** While true, StartTLS requests are answered `protocolError` here and never reach the server. */
  refuseStartTls = false;

  private constructor(
    private readonly server: Server,
    readonly host: string,
    readonly port: number,
  ) {}

  /** `host`: the loopback address to listen on (Linux answers all of 127.0.0.0/8). */
  static async start(targetPort: number, host = '127.0.0.1'): Promise<LdapWiretap> {
    let tap: LdapWiretap | null = null;
    const server = createServer((client) => tap?.relay(client, targetPort));
    await new Promise<void>((r) => server.listen(0, host, r));
    tap = new LdapWiretap(server, host, (server.address() as { port: number }).port);
    return tap;
  }

  get url(): string {
    return `ldap://${this.host}:${this.port}`;
  }

  /** Everything clients sent so far, as one buffer. */
  sent(): Buffer {
    return Buffer.concat(this.chunks);
  }

  /** Whether `text` crossed from a client in the clear. */
  sawInClear(text: string): boolean {
    return this.sent().includes(Buffer.from(text, 'utf8'));
  }

  clear(): void {
    this.chunks.length = 0;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }

  private relay(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    this.sockets.add(client).add(upstream);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (data: Buffer) => {
      this.chunks.push(Buffer.from(data));
      const id = this.refuseStartTls ? startTlsMessageId(data) : null;
      if (id !== null) client.write(protocolErrorExtendedResponse(id));
      else upstream.write(data);
    });
    upstream.on('data', (data: Buffer) => client.write(data));
  }
}

/** The message id of a StartTLS request (`30 len 02 01 id 77 …` with the OID), or null. */
function startTlsMessageId(data: Buffer): number | null {
  if (!data.includes(Buffer.from(START_TLS_OID))) return null;
  // LDAPMessage ::= SEQUENCE { messageID INTEGER, extendedReq [APPLICATION 23] ... }, short forms.
  if (data[0] !== 0x30 || data[2] !== 0x02 || data[3] !== 0x01 || data[5] !== 0x77) return null;
  return data[4];
}

/** ExtendedResponse [APPLICATION 24] { resultCode protocolError (2), matchedDN "", diagnosticMessage "" }. */
function protocolErrorExtendedResponse(messageId: number): Buffer {
  return Buffer.from([0x30, 0x0c, 0x02, 0x01, messageId, 0x78, 0x07, 0x0a, 0x01, 0x02, 0x04, 0x00, 0x04, 0x00]);
}

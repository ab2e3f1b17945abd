/** One HTTP/1.1 request exactly as the doctor wants it on the wire. */
export interface ProbeRequest {
  /** Where to connect: the scheme, host name (also the TLS server name) and port of a URL. */
  readonly scheme: 'http' | 'https';
  readonly hostname: string;
  readonly port: number;
  readonly method: string;
  /** The request target as sent: origin form (`/a/..;/b`, never normalised) or absolute form. */
  readonly target: string;
  /** Header lines in order, `Host` included (the doctor sends Hosts the URL does not name). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: string;
}

/** What came back: an answer, or why there was none. */
export type ProbeAnswer =
  | {
      readonly kind: 'answer';
      readonly status: number;
      /** Lower-case names; repeated headers (Set-Cookie) keep every value. */
      readonly headers: ReadonlyMap<string, readonly string[]>;
      readonly body: string;
    }
  /** The connection was made and then closed without a byte of answer (nginx's `return 444`, Caddy's `abort`). */
  | { readonly kind: 'closed' }
  /**
   * No connection, a TLS failure or a timeout: `reason` is one plain sentence; `failure` says
   * which, when the fix depends on it (a certificate this machine does not trust).
   */
  | { readonly kind: 'unreachable'; readonly reason: string; readonly failure?: 'untrusted_certificate' };

/** Sends one probe; never rejects (every failure is an answer of kind `closed` or `unreachable`). */
export type ProbeTransport = (request: ProbeRequest) => Promise<ProbeAnswer>;

/** The first value of a header of an answer, or undefined. */
export function headerOf(answer: ProbeAnswer, name: string): string | undefined {
  return answer.kind === 'answer' ? answer.headers.get(name)?.[0] : undefined;
}

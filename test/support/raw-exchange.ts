import { connect } from 'node:net';

/** Raw HTTP/1.1 exchanges on one kept-alive connection, read off the byte stream (the forward-auth answer-shape tests). */

export interface Exchange {
  /** Status line and headers, exactly as sent (Date normalised). */
  readonly head: string;
  readonly body: Buffer;
}

/**
 * Sends `requests` one after another on one keep-alive connection, reading each answer off the
 * raw stream: a HEAD answer ends at its blank line, any other at Content-Length bytes after it.
 */
export function exchange(port: number, requests: ReadonlyArray<{ method: string; raw: string }>): Promise<Exchange[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    const answers: Exchange[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`timed out after ${answers.length} answers; unread: ${buffer.toString('latin1')}`));
    }, 5000);
    const next = (): void => {
      if (answers.length === requests.length) {
        clearTimeout(timer);
        socket.destroy();
        // Nothing may follow the last answer: a HEAD answer with a body would leave bytes here.
        if (buffer.length > 0) reject(new Error(`bytes after the last answer: ${buffer.toString('latin1')}`));
        else resolve(answers);
        return;
      }
      socket.write(requests[answers.length].raw);
    };
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1 || answers.length === requests.length) return;
        const head = buffer.subarray(0, end).toString('latin1');
        const length = /\r\ncontent-length: (\d+)/i.exec(head);
        const bodyLength = requests[answers.length].method === 'HEAD' ? 0 : Number(length?.[1] ?? 0);
        if (buffer.length < end + 4 + bodyLength) return;
        answers.push({ head: head.replace(/\r\nDate: [^\r]*/i, '\r\nDate: <date>'), body: buffer.subarray(end + 4, end + 4 + bodyLength) });
        buffer = buffer.subarray(end + 4 + bodyLength);
        // Give a HEAD answer that wrongly carries a body the chance to show it before the next request.
        setTimeout(next, answers.length === requests.length ? 50 : 5);
      }
    });
    socket.on('error', reject);
    next();
  });
}

/** One raw request; its fixed `X-Request-Id` makes two answers comparable byte for byte. */
export function rawRequest(method: string, path: string, headers: Record<string, string>): { method: string; raw: string } {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'X-Request-Id: fixed-id-1', ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`)];
  return { method, raw: `${lines.join('\r\n')}\r\n\r\n` };
}

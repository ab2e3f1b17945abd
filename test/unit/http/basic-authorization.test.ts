import { randomBytes } from 'node:crypto';
import { isBasicAuthorization, parseBasicAuthorization, presentedBasicCredentials } from '../../../src/adapters/http/basic-authorization';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('isBasicAuthorization', () => {
  it('recognises the Basic scheme in any case', () => {
    for (const header of ['Basic abc', 'basic abc', 'BASIC abc', 'Basic !!!']) expect(isBasicAuthorization(header)).toBe(true);
  });

  it('does not mistake other schemes, a bare scheme or no header for Basic', () => {
    // Letters that differ from b, a, s, i, c only in the bit that folds ASCII case, and Unicode
    // letters that upper-case to them, are not the scheme either.
    const lookAlikes = [
      'Bas\u0130c abc',
      'Ba\u017Fic abc',
      'B\u0041sic\tabc',
      'Basi\u0043\u00A0abc',
      'Bbsic abc',
      'Basic\u0000abc',
      '\u0002asic abc',
      'Basi# abc',
    ];
    for (const header of [undefined, '', 'Basic', 'Basic ', 'Bearer abc', 'Basicabc', 'Digest username="a"', ' Basic abc', ...lookAlikes]) {
      expect(isBasicAuthorization(header)).toBe(false);
    }
  });
});

describe('parseBasicAuthorization', () => {
  it('decodes username and password', () => {
    expect(parseBasicAuthorization(`Basic ${b64('alice:correct horse')}`)).toEqual({ kind: 'basic', username: 'alice', password: 'correct horse' });
  });

  it('splits at the first colon only, so passwords may contain colons', () => {
    expect(parseBasicAuthorization(`Basic ${b64('alice:a:b::c')}`)).toEqual({ kind: 'basic', username: 'alice', password: 'a:b::c' });
  });

  it('accepts an empty password and UTF-8 names (RFC 7617 charset)', () => {
    expect(parseBasicAuthorization(`Basic ${b64('alice:')}`)).toEqual({ kind: 'basic', username: 'alice', password: '' });
    expect(parseBasicAuthorization(`Basic ${b64('jörg@example.com:pässwort')}`)).toEqual({ kind: 'basic', username: 'jörg@example.com', password: 'pässwort' });
  });

  it('accepts the scheme in any case, extra spaces and unpadded base64', () => {
    expect(parseBasicAuthorization(`bAsIc    ${b64('alice:pw')}  `)).toEqual({ kind: 'basic', username: 'alice', password: 'pw' });
    expect(parseBasicAuthorization(`Basic ${b64('alice:pw1').replace(/=+$/, '')}`)).toEqual({ kind: 'basic', username: 'alice', password: 'pw1' });
  });

  it('refuses other schemes and missing headers', () => {
    expect(parseBasicAuthorization(undefined)).toBeNull();
    expect(parseBasicAuthorization(`Bearer ${b64('alice:pw')}`)).toBeNull();
  });

  it('refuses a payload that is not base64', () => {
    for (const payload of ['alice:pw', '!!!!', 'YWxp Y2U6cHc=', 'YWxpY2U6cHc===', 'YWxpY2U6cHc=x', '-_-_']) {
      expect(parseBasicAuthorization(`Basic ${payload}`)).toBeNull();
    }
  });

  it('refuses a payload without a colon or with an empty username', () => {
    expect(parseBasicAuthorization(`Basic ${b64('alice')}`)).toBeNull();
    expect(parseBasicAuthorization(`Basic ${b64(':pw')}`)).toBeNull();
  });

  it('refuses an oversized payload without decoding it', () => {
    expect(parseBasicAuthorization(`Basic ${b64(`alice:${'x'.repeat(4000)}`)}`)).toBeNull();
  });
});

describe('presentedBasicCredentials', () => {
  const plain = (c: ReturnType<typeof presentedBasicCredentials>) => (c === null ? null : { kind: c.kind, username: c.username, password: c.password });

  it('presents what parseBasicAuthorization decodes, with the encoded text it came from', () => {
    const payload = b64('jörg@example.com:pä:ss');
    const presented = presentedBasicCredentials(`bAsIc   ${payload} `);
    expect(presented?.encoded).toBe(payload);
    expect(plain(presented)).toEqual({ kind: 'basic', username: 'jörg@example.com', password: 'pä:ss' });
  });

  it('refuses exactly what parseBasicAuthorization refuses', () => {
    const headers = [
      undefined,
      `Bearer ${b64('alice:pw')}`,
      'Basic !!!!',
      'Basic YWxpY2U6cHc===',
      `Basic ${b64('alice')}`,
      `Basic ${b64(':pw')}`,
      `Basic ${b64(`alice:${'x'.repeat(4000)}`)}`,
      // A colon only in the bits a trailing character leaves over: no colon byte.
      'Basic YWxpY2U6',
      'Basic YWxpY2U',
      'Basic Og',
      'Basic Oh',
      'Basic xOg',
      // Read where it stands unless there is space around it: padding, characters and spaces
      // the in-place check must refuse, or hand to the trimming path, just as the decoder does.
      'Basic =',
      'Basic ==YQ',
      'Basic YQ=a',
      'Basic YWxp=Y2U6cHc',
      'Basic YWxpY2U6=cHc=',
      'Basic YWxpY2U6cHc===',
      `Basic ${b64('alice:pw').slice(0, 4)}\u00e9${b64('alice:pw').slice(4)}`,
      `Basic ${b64('alice:pw').slice(0, 4)} ${b64('alice:pw').slice(4)}`,
      `Basic ${b64(`alice:${'x'.repeat(3067)}`)}`,
    ];
    for (const header of headers) expect(plain(presentedBasicCredentials(header))).toEqual(parseBasicAuthorization(header));
  });

  it('presents a payload with space around it, or of the longest length, as the decoder reads it', () => {
    const headers = [
      `Basic  ${b64('alice:pw')}`,
      `Basic \t${b64('alice:pw')}`,
      `Basic ${b64('alice:pw')}\u00a0`,
      `Basic ${b64('alice:pw')}  `,
      `Basic ${b64(`alice:${'x'.repeat(3066)}`)}`,
      `Basic ${b64(`alice:${'x'.repeat(3066)}`)}   `,
    ];
    for (const header of headers) {
      const presented = presentedBasicCredentials(header);
      expect(presented).not.toBeNull();
      expect(presented?.encoded).toBe(header.slice(6).trim());
      expect(plain(presented)).toEqual(parseBasicAuthorization(header));
    }
  });

  // The colon is found without decoding (see firstColonByte): it must agree with the decoder on
  // every payload, trailing partial groups, padding and bytes that are not UTF-8 included.
  it('agrees with parseBasicAuthorization on random payloads', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const colonish = ['O', 'g', '6', 'o', 'Q', 'j'];
    for (let i = 0; i < 20_000; i += 1) {
      const bytes = randomBytes(1 + (i % 23));
      let payload: string;
      if (i % 3 === 0) {
        // Random bytes, colons sprinkled in (and sometimes first), cut and unpadded at random.
        for (let j = 0; j < bytes.length; j += 1) if (bytes[j] % 5 === 0) bytes[j] = 0x3a;
        payload = bytes.toString('base64');
        if (i % 2 === 0) payload = payload.replace(/=+$/, '');
      } else {
        // Random characters of the alphabet, of every length modulo 4, with colon-prone letters.
        payload = '';
        for (let j = 0; j < bytes.length; j += 1) payload += j % 4 === 1 && bytes[j] % 3 === 0 ? colonish[bytes[j] % 6] : alphabet[bytes[j] % 64];
        if (i % 5 === 0) payload += '='.repeat(i % 3);
      }
      const header = `Basic ${payload}`;
      const parsed = parseBasicAuthorization(header);
      const presented = presentedBasicCredentials(header);
      expect({ header, presented: plain(presented) }).toEqual({ header, presented: parsed });
    }
  });
});

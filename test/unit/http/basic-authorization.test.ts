import { isBasicAuthorization, parseBasicAuthorization } from '../../../src/adapters/http/basic-authorization';

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

import { printableHeaderValue } from '../../../src/adapters/http/header-value';
import { describeIdentityNameError, parseDisplayName, parseGroupName, parseUsername } from '../../../src/domain/identity-name';

const code = (r: { ok: boolean; error?: { code: string } }): string => (r.ok ? 'ok' : (r.error?.code ?? '?'));

describe('identity names', () => {
  it('accepts ordinary usernames and e-mail addresses as they are', () => {
    for (const name of ['alice', 'Bob', 'carol@example.org', 'o.brien-2', 'zoë', 'we*rd(1)', '0123'])
      expect(parseUsername(name)).toEqual({ ok: true, value: name });
  });

  it.each([
    ['a zero-width space', 'al\u200bice', 'invisible_character'],
    ['a zero-width joiner', 'al\u200dice', 'invisible_character'],
    ['a byte-order mark', '\ufeffalice', 'invisible_character'],
    ['a soft hyphen', 'al\u00adice', 'invisible_character'],
    ['a right-to-left override', 'alice\u202e', 'invisible_character'],
    ['a NUL', 'alice\u0000', 'invisible_character'],
    ['a DEL', 'alice\u007f', 'invisible_character'],
    ['a C1 control', 'alice\u0085', 'invisible_character'],
    ['a line feed', 'alice\nadmin', 'invisible_character'],
    ['a tab', 'al\tice', 'invisible_character'],
    ['a space', 'al ice', 'white_space'],
    ['a no-break space', 'al\u00a0ice', 'white_space'],
    ['an ideographic space', 'al\u3000ice', 'white_space'],
    ['a line separator', 'alice\u2028', 'white_space'],
    ['a lone surrogate', 'al\ud800ice', 'invisible_character'],
    ['a private-use character', 'al\ue000ice', 'invisible_character'],
    ['a character a header cannot carry', 'алиса', 'unsupported_character'],
    ['nothing', '', 'empty'],
    ['257 characters', 'a'.repeat(257), 'too_long'],
  ])('refuses a username with %s', (_what, name, expected) => {
    expect(code(parseUsername(name))).toBe(expected);
  });

  it('accepts group names with inner spaces, refuses commas, invisible characters and outer or doubled spaces', () => {
    expect(parseGroupName('Domain Admins')).toEqual({ ok: true, value: 'Domain Admins' });
    expect(code(parseGroupName('admins,staff'))).toBe('comma');
    expect(code(parseGroupName('ad\u200bmins'))).toBe('invisible_character');
    expect(code(parseGroupName(' admins'))).toBe('white_space');
    expect(code(parseGroupName('Domain  Admins'))).toBe('white_space');
    expect(code(parseGroupName('admins\r\nX-Injected: 1'))).toBe('invisible_character');
  });

  it('accepts display names with spaces and any script, refuses invisible characters and line breaks', () => {
    expect(parseDisplayName('Zoë Li 李雷')).toEqual({ ok: true, value: 'Zoë Li 李雷' });
    expect(code(parseDisplayName('Alice\u200b'))).toBe('invisible_character');
    expect(code(parseDisplayName('Alice\nBob'))).toBe('invisible_character');
    expect(code(parseDisplayName('Alice\u2028Bob'))).toBe('white_space');
  });

  it('describes every refusal in words', () => {
    for (const c of ['empty', 'too_long', 'invisible_character', 'white_space', 'unsupported_character', 'comma'] as const) {
      expect(describeIdentityNameError({ code: c })).toMatch(/\w/);
    }
  });

  it('leaves nothing for the header cleaning to change in an accepted username, e-mail or group list', () => {
    // Every Latin-1 character and a sample beyond: whatever the rules accept reaches the upstream unchanged.
    const candidates = Array.from({ length: 0x300 }, (_, i) => `a${String.fromCharCode(i)}b`);
    for (const name of [...candidates, 'al\u200bice', 'zoë@example.com', 'we*rd(1)']) {
      const user = parseUsername(name);
      if (user.ok) expect(printableHeaderValue(user.value)).toBe(user.value);
      const group = parseGroupName(name);
      if (group.ok) expect(printableHeaderValue([group.value, 'Domain Admins'].join(','))).toBe(`${group.value},Domain Admins`);
    }
  });
});

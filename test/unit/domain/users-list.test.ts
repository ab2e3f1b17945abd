import { accountFromEntry, entriesDecoy, parseUsersList } from '../../../src/domain/users-list';

const hash = (cost: string, tail = 'a'): string => `$2b$${cost}$${tail.repeat(53)}`;

describe('parseUsersList', () => {
  it('reads comma-separated entries, with and without TOTP, unescaping $$', () => {
    const text = `alice:${hash('05').replace(/\$/g, '$$$$')}, bob:${hash('10')}:jbsw y3dp ehpk 3pxp`;
    expect(parseUsersList(text, 'comma')).toEqual({
      entries: [
        { username: 'alice', hash: hash('05') },
        { username: 'bob', hash: hash('10'), totpSecret: 'JBSWY3DPEHPK3PXP' },
      ],
      problems: [],
    });
  });

  it('reads one entry per line from a file, skipping comments and blank lines', () => {
    const text = `# accounts\n\nalice:${hash('05')}  # the admin\r\ncarol@example.org:${hash('05')}\n`;
    expect(parseUsersList(text, 'line').entries.map((e) => e.username)).toEqual(['alice', 'carol@example.org']);
  });

  it('names each bad entry by position without echoing its hash', () => {
    const secretLooking = hash('05', 'S');
    const { problems } = parseUsersList(`alice, :${secretLooking}, bob:plaintext, dave:${hash('05')}:short, alice:${hash('05')}, alice:${hash('05')}`, 'comma');
    expect(problems).toEqual([
      'entry 1: expected username:password-hash[:totp-secret]',
      'entry 2: invalid username (is empty)',
      expect.stringMatching(
        /^entry 3 \(bob\): password must be a bcrypt \(\$2a\$, \$2b\$, \$2y\$\) or Argon2 \(\$argon2id\$, \$argon2i\$\) hash; it holds no "\$": if it was a hash, a shell/,
      ),
      'entry 4 (dave): TOTP secret must be base32, at least 16 characters',
      'entry 6: duplicate username alice',
    ]);
    expect(problems.join(' ')).not.toContain('SSSS');
  });
});

describe('accountFromEntry', () => {
  it('refuses a username with an invisible, control or non-Latin-1 character, saying why', () => {
    const parsed = parseUsersList(`al\u200bice:${hash('10')},alice\u0085:${hash('10')},алиса:${hash('10')},alice:${hash('10')}`, 'comma');
    expect(parsed.entries.map((e) => e.username)).toEqual(['alice']);
    expect(parsed.problems).toEqual([
      'entry 1: invalid username (contains a control or invisible character (e.g. a zero-width space))',
      'entry 2: invalid username (contains a control or invisible character (e.g. a zero-width space))',
      'entry 3: invalid username (contains a character outside printable Latin-1, which a header cannot carry)',
    ]);
  });

  it('derives e-mail and name from the username and the protected domain', () => {
    expect(accountFromEntry({ username: 'Alice', hash: hash('05') }, 'example.com')).toMatchObject({
      username: 'Alice',
      email: 'alice@example.com',
      name: 'Alice',
      groups: [],
    });
    expect(accountFromEntry({ username: 'carol@example.org', hash: hash('05') }, 'example.com')).toMatchObject({ email: 'carol@example.org', name: 'carol' });
  });

  it('uses the hash as the credential version, so a password change is noticed', () => {
    expect(accountFromEntry({ username: 'alice', hash: hash('05') }, 'example.com').credentialVersion).toBe(hash('05'));
  });
});

const ARGON2ID = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$' + 'A'.repeat(43);

describe('USERS with Argon2 hashes', () => {
  it('keeps the commas of an Argon2 hash inside its entry', () => {
    const text = `alice:${ARGON2ID}, bob:${hash('10')},carol:${ARGON2ID.replace('argon2id', 'argon2i').replace(/\$/g, '$$$$')}:JBSWY3DPEHPK3PXP`;
    expect(parseUsersList(text, 'comma')).toEqual({
      entries: [
        { username: 'alice', hash: ARGON2ID },
        { username: 'bob', hash: hash('10') },
        { username: 'carol', hash: ARGON2ID.replace('argon2id', 'argon2i'), totpSecret: 'JBSWY3DPEHPK3PXP' },
      ],
      problems: [],
    });
  });

  it('names an account whose hash is of a kind it cannot verify, or costs too much', () => {
    const { entries, problems } = parseUsersList(
      `alice:$pbkdf2-sha512$310000$c2FsdA$aGFzaA, bob:$6$salt$hash, carol:$argon2id$v=19$m=4194304,t=1,p=4$c29tZXNhbHRzb21lc2FsdA$${'A'.repeat(43)}, dave:${hash('10')}`,
      'comma',
    );
    expect(entries.map((e) => e.username)).toEqual(['dave']);
    expect(problems).toEqual([
      expect.stringMatching(/^entry 1 \(alice\): a PBKDF2 hash cannot be verified; it must be a bcrypt/),
      expect.stringMatching(/^entry 2 \(bob\): a SHA-512 crypt hash cannot be verified/),
      'entry 3 (carol): Argon2 memory m=4194304 KiB is outside 32 to 262144 KiB (256 MiB)',
    ]);
  });
});

describe('entriesDecoy', () => {
  it('picks the cost most bcrypt hashes use', () => {
    expect(
      entriesDecoy([
        { username: 'a', hash: hash('05') },
        { username: 'b', hash: hash('05') },
        { username: 'c', hash: hash('12') },
      ]),
    ).toEqual({ kind: 'bcrypt', cost: 5 });
  });

  it('picks the higher cost on a tie, and nothing without entries', () => {
    expect(
      entriesDecoy([
        { username: 'a', hash: hash('05') },
        { username: 'b', hash: hash('11') },
      ]),
    ).toEqual({ kind: 'bcrypt', cost: 11 });
    expect(entriesDecoy([])).toBeUndefined();
  });

  it('picks the costlier kind in use: Authelia Argon2id over bcrypt cost 10, even when bcrypt accounts outnumber it', () => {
    expect(
      entriesDecoy([
        { username: 'a', hash: hash('10') },
        { username: 'b', hash: hash('10') },
        { username: 'c', hash: ARGON2ID },
      ]),
    ).toEqual({ kind: 'argon2', variant: 'argon2id', memoryKiB: 65536, iterations: 3, parallelism: 4 });
  });
});

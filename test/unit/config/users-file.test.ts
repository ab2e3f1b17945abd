import { optionalModules } from '../../../src/composition/optional-modules';
import { accountFromFileEntry, detectUsersFileFormat, parseUsersFile } from '../../../src/config/users-file';

const HASH = '$2b$04$abcdefghijklmnopqrstuuJ6lL2Tq3Jk0WcC8nO5s4yX1a2b3c4dE';

describe('users file parsing', () => {
  it('detects YAML by extension and by a leading users: key, and lines otherwise', () => {
    expect(detectUsersFileFormat('alice:x', '/etc/users.yml')).toBe('yaml');
    expect(detectUsersFileFormat('# accounts\n\nusers:\n  - username: a', '/etc/users')).toBe('yaml');
    expect(detectUsersFileFormat('# accounts\nalice:$2b$...', '/etc/users.txt')).toBe('lines');
    expect(detectUsersFileFormat('', '/etc/users')).toBe('lines');
  });

  it('reads the line format with comments, like USERS', () => {
    const parsed = parseUsersFile(`# staff\nalice:${HASH}\n\nbob:${HASH}:JBSWY3DPEHPK3PXPJBSWY3DP # bob\n`, 'users', optionalModules.yaml);
    expect(parsed.format).toBe('lines');
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries.map((e) => e.username)).toEqual(['alice', 'bob']);
    expect(parsed.entries[1].totpSecret).toBe('JBSWY3DPEHPK3PXPJBSWY3DP');
  });

  it('reads Argon2id and Argon2i hashes in both forms, and names the line of a hash it cannot verify or that costs too much', () => {
    const id = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$' + 'Q'.repeat(20) + 'abcdefghijklmnopqrstuvw';
    const i = id.replace('argon2id', 'argon2i');
    const lines = parseUsersFile(`alice:${id}\nbob:${i}:JBSWY3DPEHPK3PXPJBSWY3DP\ncarol:$pbkdf2-sha512$310000$c2FsdA$aGFzaA\n`, 'users', optionalModules.yaml);
    expect(lines.entries.map((e) => [e.username, e.hash])).toEqual([
      ['alice', id],
      ['bob', i],
    ]);
    expect(lines.problems).toEqual([expect.stringMatching(/^line 3 \(carol\): a PBKDF2 hash cannot be verified; it must be a bcrypt/)]);
    const yamlFile = [
      'users:',
      '  - username: alice',
      `    password: "${id}"`,
      '  - username: dave',
      `    password: "${id.replace('m=65536', 'm=2097152')}"`,
      '  - username: erin',
      "    password: '$6$rounds=5000$saltsalt$hashhash'",
    ].join('\n');
    const yaml = parseUsersFile(yamlFile, 'users.yml', optionalModules.yaml);
    expect(yaml.entries.map((e) => [e.username, e.hash])).toEqual([['alice', id]]);
    expect(yaml.problems).toEqual([
      'line 4 (dave): Argon2 memory m=2097152 KiB is outside 32 to 262144 KiB (256 MiB); make one with "portcullis user add"',
      expect.stringMatching(/^line 6 \(erin\): a SHA-512 crypt hash cannot be verified/),
    ]);
  });

  it('lets a disabled account go without a password, but not with a hash it cannot verify', () => {
    const parsed = parseUsersFile(
      [
        'users:',
        '  - username: imported',
        '    disabled: true',
        '  - username: kept',
        '    disabled: true',
        "    password: '$pbkdf2-sha512$310000$c2FsdA$aGFzaA'",
        '  - username: enabled',
        '    disabled: false',
      ].join('\n'),
      'users.yaml',
      optionalModules.yaml,
    );
    expect(parsed.entries).toEqual([{ username: 'imported', hash: '', disabled: true }]);
    expect(parsed.problems).toEqual([
      expect.stringMatching(/^line 4 \(kept\): a PBKDF2 hash cannot be verified/),
      expect.stringMatching(/^line 7 \(enabled\): password must be a bcrypt/),
    ]);
  });

  it('reads every field of the YAML form', () => {
    const parsed = parseUsersFile(
      [
        'users:',
        '  - username: alice',
        `    password: "${HASH}"`,
        '    email: Alice@Example.com',
        '    name: Alice Liddell',
        '    groups: [admins, staff]',
        '    totp_secret: jbsw y3dp ehpk 3pxp',
        '  - username: "0123"',
        `    password: '${HASH}'`,
        '    groups: ops, dev',
        '    disabled: true',
      ].join('\n'),
      'users.yaml',
      optionalModules.yaml,
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries).toEqual([
      { username: 'alice', hash: HASH, email: 'alice@example.com', name: 'Alice Liddell', groups: ['admins', 'staff'], totpSecret: 'JBSWY3DPEHPK3PXP' },
      { username: '0123', hash: HASH, groups: ['ops', 'dev'], disabled: true },
    ]);
  });

  it('keeps a YAML username like 0123 as written, not as a number', () => {
    const parsed = parseUsersFile(`users:\n  - username: 0123\n    password: "${HASH}"\n`, 'u.yml', optionalModules.yaml);
    expect(parsed.entries[0].username).toBe('0123');
  });

  it('keeps unquoted YAML group names like 007, 0x10, 1e3, true and null as written', () => {
    const parsed = parseUsersFile(
      `users:\n  - username: 007\n    password: "${HASH}"\n    groups: [007, 0x10, 1e3, true, null]\n`,
      'users.yaml',
      optionalModules.yaml,
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries[0].username).toBe('007');
    expect(parsed.entries[0].groups).toEqual(['007', '0x10', '1e3', 'true', 'null']);
  });

  it('refuses, with their line, YAML entries whose username, e-mail, name or groups carry invisible characters or commas', () => {
    const entry = (fields: string): string => `  - username: ${fields}\n    password: "${HASH}"\n`;
    const parsed = parseUsersFile(
      'users:\n' +
        entry('"al\\u200bice"') +
        entry('bob\n    email: "bo\\u200bb@example.com"') +
        entry('carol\n    name: "Carol\\u0007"') +
        entry('dave\n    groups: ["ad\\u200bmins"]') +
        entry('erin\n    groups: [Domain Admins]') +
        entry('alice'),
      'users.yaml',
      optionalModules.yaml,
    );
    expect(parsed.entries.map((e) => [e.username, e.groups])).toEqual([
      ['erin', ['Domain Admins']],
      ['alice', undefined],
    ]);
    expect(parsed.problems).toEqual([
      'line 2 (al?ice): username is missing or invalid (contains a control or invisible character (e.g. a zero-width space))',
      'line 4 (bob): email is not an e-mail address (contains a control or invisible character (e.g. a zero-width space))',
      'line 7 (carol): name is invalid (contains a control or invisible character (e.g. a zero-width space))',
      'line 10 (dave): groups must be a list of names (contains a control or invisible character (e.g. a zero-width space))',
    ]);
  });

  it('lists every problem of a YAML file with its line, and never the hash', () => {
    const parsed = parseUsersFile(
      [
        'users:',
        '  - username: alice',
        '    password: plain-text-password',
        '  - username: bob',
        `    password: "${HASH}"`,
        '    pasword: typo',
        '    disabled: maybe',
        '  - username: bob',
        `    password: "${HASH}"`,
        '  - username: carol',
        `    password: "${HASH}"`,
        '    totp_secret: "not base32!"',
        '    email: nope',
      ].join('\n'),
      'users.yaml',
      optionalModules.yaml,
    );
    expect(parsed.problems).toEqual([
      'line 2 (alice): password must be a bcrypt ($2a$, $2b$, $2y$) or Argon2 ($argon2id$, $argon2i$) hash; make one with "portcullis user add"',
      'line 4 (bob): unknown field "pasword"',
      'line 4 (bob): disabled must be true or false',
      'line 8 (bob): duplicate username',
      'line 10 (carol): email is not an e-mail address',
      'line 10 (carol): totp_secret must be base32, at least 16 characters',
    ]);
    expect(parsed.problems.join('\n')).not.toContain(HASH);
    expect(parsed.problems.join('\n')).not.toContain('plain-text-password');
  });

  it('reports YAML syntax errors with a line number instead of the offending text', () => {
    const parsed = parseUsersFile(`users:\n  - username: alice\n    password: "${HASH}\n`, 'users.yaml', optionalModules.yaml);
    expect(parsed.entries).toEqual([]);
    expect(parsed.problems.length).toBeGreaterThan(0);
    expect(parsed.problems[0]).toMatch(/^line \d+: invalid YAML/);
    expect(parsed.problems.join('\n')).not.toContain(HASH);
  });

  it('refuses a YAML file that is not a users list', () => {
    expect(parseUsersFile('- alice', 'u.yaml', optionalModules.yaml).problems).toEqual(['line 1: expected a mapping with a "users:" list']);
    expect(parseUsersFile('users: alice', 'u.yaml', optionalModules.yaml).problems).toEqual(['line 1: "users" must be a list']);
    expect(parseUsersFile('users: []\nadmins: []', 'u.yaml', optionalModules.yaml).problems).toEqual([
      'line 2: unknown top-level key "admins" (expected only "users")',
    ]);
    expect(parseUsersFile('users:\n', 'u.yaml', optionalModules.yaml)).toEqual({ format: 'yaml', entries: [], problems: [] });
  });

  it('derives e-mail and name for entries that do not give them', () => {
    const account = accountFromFileEntry({ username: 'Bob', hash: HASH }, 'example.com');
    expect(account).toMatchObject({ username: 'Bob', email: 'bob@example.com', name: 'Bob', groups: [], credentialVersion: HASH });
  });
});

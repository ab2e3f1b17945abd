import { userInfo } from 'node:os';
import { cannotRead } from '../../../src/config/unreadable-file';

const failure = (code: string): Error => Object.assign(new Error('x'), { code });

describe('cannotRead: why a file could not be read, in words a person can act on', () => {
  it('names a missing file, a directory and a path through a file', () => {
    expect(cannotRead('/run/secrets/s', failure('ENOENT'))).toBe('cannot read /run/secrets/s: no such file');
    expect(cannotRead('/run/secrets', failure('EISDIR'))).toBe('cannot read /run/secrets: it is a directory, not a file');
    expect(cannotRead('/etc/passwd/x', failure('ENOTDIR'))).toBe('cannot read /etc/passwd/x: a part of the path is not a directory');
  });

  it('names the user the gateway runs as when the file is not permitted', () => {
    const me = userInfo();
    for (const code of ['EACCES', 'EPERM'])
      expect(cannotRead('/s', failure(code))).toBe(`cannot read /s: not permitted for the user the gateway runs as (${me.username}, uid ${me.uid})`);
  });

  it('keeps the plain sentence for a failure it cannot explain, and never repeats the error text', () => {
    expect(cannotRead('/s', new Error('secret-looking text'))).toBe('cannot read /s');
    expect(cannotRead('/s', null)).toBe('cannot read /s');
  });
});

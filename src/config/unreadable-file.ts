import { userInfo } from 'node:os';

/** Who the gateway runs as, for a message about a file it may not read ("portcullis, uid 999"). */
function runningAs(): string {
  try {
    const me = userInfo();
    return `${me.username}, uid ${me.uid}`;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}

/**
 * "cannot read <path>" with the reason a person can act on: missing, not permitted (and for which
 * user: a container or service often runs as another one than the file's owner), or a directory.
 * A failure without a known code keeps the plain sentence.
 */
export function cannotRead(path: string, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return `cannot read ${path}: no such file`;
    case 'EACCES':
    case 'EPERM':
      return `cannot read ${path}: not permitted for the user the gateway runs as (${runningAs()})`;
    case 'EISDIR':
      return `cannot read ${path}: it is a directory, not a file`;
    case 'ENOTDIR':
      return `cannot read ${path}: a part of the path is not a directory`;
    default:
      return `cannot read ${path}`;
  }
}

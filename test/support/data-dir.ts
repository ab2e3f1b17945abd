import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the system's temp dir (never inside the repository), for a DATA_DIR. */
export function tempDataDir(label = 'portcullis-data'): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

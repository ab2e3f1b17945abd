/** Strips what must never reach an upstream header: control characters, DEL and anything outside printable Latin-1. */
export function printableHeaderValue(value: string): string {
  return value.replace(/[^\u0020-\u007e\u00a0-\u00ff]/g, '').trim();
}

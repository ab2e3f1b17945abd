/** Strips what must never reach an upstream header: control characters, DEL and anything outside printable Latin-1. */
export function printableHeaderValue(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[^\u0020-\u007e\u00a0-\u00ff]/g, '').trim();
}

/**
 * Telling a typo from a new word: the known word a mistyped one most likely meant, for a "did you
 * mean" next to an unknown option, command or variable. Pure; no I/O.
 */

/** Edits from `a` to `b` (insert, delete, replace, or two neighbours swapped); 3 for anything further. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      // Two letters swapped (APP_ULR) count as one edit.
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, beforePrevious[j - 2] + 1);
      current.push(d);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length];
}

/**
 * The known word closest to `word`, if it is a likely typo of one: two edits for a word of 8
 * characters or more, one for a shorter one (PORT, USERS); undefined when none is that close.
 */
export function nearMiss(word: string, known: readonly string[]): string | undefined {
  return known
    .map((candidate) => ({ candidate, d: editDistance(word, candidate) }))
    .filter(({ candidate, d }) => d > 0 && d <= (candidate.length >= 8 ? 2 : 1))
    .sort((x, y) => x.d - y.d)[0]?.candidate;
}

/** " (did you mean X?)" for a likely typo of a known word, else "". */
export function didYouMean(word: string, known: readonly string[]): string {
  const near = nearMiss(word, known);
  return near === undefined ? '' : `: did you mean ${near}?`;
}

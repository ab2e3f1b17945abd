/** PASS: checked and fine. WARN: worth a look, not a hole. FAIL: a hole or a broken login. SKIP: could not be checked. */
export type Verdict = 'PASS' | 'WARN' | 'FAIL' | 'SKIP';

/** One line of the doctor's report. */
export interface Finding {
  readonly verdict: Verdict;
  /** A stable short name (`x-forwarded-host`, `unknown-host`, ...), for scripts and tests. */
  readonly check: string;
  /** What was seen, in plain words. */
  readonly message: string;
  /** What to change, for WARN and FAIL. */
  readonly fix?: string;
}

/** The report as the operator reads it: one line per finding, its fix indented under it. */
export function formatFinding(f: Finding): string {
  const line = `${f.verdict.padEnd(4)}  ${f.check}: ${f.message}\n`;
  return f.fix === undefined || f.verdict === 'PASS' ? line : `${line}      fix: ${f.fix}\n`;
}

export function summary(findings: readonly Finding[]): string {
  const count = (v: Verdict): number => findings.filter((f) => f.verdict === v).length;
  const parts = [`${count('PASS')} passed`, `${count('WARN')} warning${count('WARN') === 1 ? '' : 's'}`, `${count('FAIL')} failed`];
  if (count('SKIP') > 0) parts.push(`${count('SKIP')} skipped`);
  return `${parts.join(', ')}\n`;
}

/** Types of scripts/dockerfile.js, for the tests that import it. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
  readonly stage: number;
}
export interface Stage {
  readonly name: string;
  readonly image: string;
  readonly instructions: readonly Instruction[];
}
export interface IgnoreRule {
  readonly negated: boolean;
  readonly pattern: string;
  readonly re: RegExp;
}
export function parseDockerfile(text: string): Instruction[];
export function splitFlags(args: string): { flags: Record<string, string>; rest: string };
export function stagesOf(instructions: readonly Instruction[]): Stage[];
export function parseDockerignore(text: string): IgnoreRule[];
export function ignored(rules: readonly IgnoreRule[], path: string): boolean;
export function contextFiles(root: string, rules: readonly IgnoreRule[]): string[];
export function readRepository(root: string): { stages: Stage[]; ignore: IgnoreRule[] };

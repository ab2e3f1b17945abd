import type { OptionSpec, Parser } from './option-spec';
import { placeholderMarkerIn } from './placeholders';
import { cannotRead } from './unreadable-file';

/** What one row reads as: its parser's value, or its fallback. */
export type RowValue<S> = S extends { parse: Parser<infer V>; fallback: infer F } ? V | F : never;

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * How every section reads the environment (flags already merged in), and where it reports what is
 * wrong: one list of problems for all sections, so one start-up attempt shows them all. Problem
 * texts name options, never a secret value.
 */
export interface EnvReader {
  readonly env: Env;
  readonly readFile: (path: string) => string;
  /** Every problem found so far, in the order found. */
  readonly problems: string[];
  /** A set value, trimmed; undefined when unset or blank. */
  get(name: string): string | undefined;
  /** `<NAME>` or the content of the file `<NAME>_FILE` names (not both); undefined when neither is set or the file cannot be read. */
  fromFile(name: string): string | undefined;
  /** Whether `<NAME>_FILE` could not be read: already reported, so "X is required" would only say it again. */
  unreadable(name: string): boolean;
  /** A plain value through the option table: its parser, or its fallback when unset or invalid (the problem reported). */
  /** The option `name` of the section table `table`, parsed; its fallback when unset or invalid (the problem is noted). */
  option<T extends Readonly<Record<string, OptionSpec>>, K extends keyof T & string>(table: T, name: K): RowValue<T[K]>;
  /** Reports `value` when it holds a placeholder from the examples (naming the option and the marker, never the value). */
  placeholder(name: string, value: string | undefined, fix: string): boolean;
}

export function envReader(env: Env, readFile: (path: string) => string, problems: string[]): EnvReader {
  const unreadable = new Set<string>();
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  return {
    env,
    readFile,
    problems,
    get,
    fromFile(name) {
      const direct = get(name);
      const file = get(`${name}_FILE`);
      if (direct !== undefined && file !== undefined) problems.push(`set either ${name} or ${name}_FILE, not both`);
      if (file === undefined) return direct;
      try {
        return readFile(file);
      } catch (e) {
        problems.push(`${name}_FILE: ${cannotRead(file, e)}`);
        unreadable.add(name);
        return undefined;
      }
    },
    unreadable: (name) => unreadable.has(name),
    option<T extends Readonly<Record<string, OptionSpec>>, K extends keyof T & string>(table: T, name: K): RowValue<T[K]> {
      const spec = table[name];
      const raw = get(name);
      if (raw === undefined) return spec.fallback as RowValue<T[K]>;
      const parsed = spec.parse(raw, name);
      if (parsed.ok) return parsed.value as RowValue<T[K]>;
      problems.push(parsed.problem);
      return spec.fallback as RowValue<T[K]>;
    },
    placeholder(name, value, fix) {
      const marker = value === undefined ? null : placeholderMarkerIn(value);
      if (marker !== null) problems.push(`${name} is a placeholder copied from the examples (it contains "${marker}"): ${fix}`);
      return marker !== null;
    },
  };
}

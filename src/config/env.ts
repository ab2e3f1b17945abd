import { OPTION_TABLE, type OptionName, type OptionValue } from './options';
import { placeholderMarkerIn } from './placeholders';
import { cannotRead } from './unreadable-file';

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
  read<K extends OptionName>(name: K): OptionValue<K>;
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
    read<K extends OptionName>(name: K): OptionValue<K> {
      const spec = OPTION_TABLE[name];
      const raw = get(name);
      if (raw === undefined) return spec.fallback as OptionValue<K>;
      const parsed = spec.parse(raw, name);
      if (parsed.ok) return parsed.value as OptionValue<K>;
      problems.push(parsed.problem);
      return spec.fallback as OptionValue<K>;
    },
    placeholder(name, value, fix) {
      const marker = value === undefined ? null : placeholderMarkerIn(value);
      if (marker !== null) problems.push(`${name} is a placeholder copied from the examples (it contains "${marker}"): ${fix}`);
      return marker !== null;
    },
  };
}

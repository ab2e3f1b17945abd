/**
 * The UI's words: one message catalog per locale (ui/locales/<locale>.json), English bundled as the
 * fallback, the chosen one fetched when the page starts. Plurals, numbers, lists and waits come
 * from the platform's `Intl` (PluralRules, NumberFormat, ListFormat, RelativeTimeFormat), never
 * from rules written here. No DOM in this module, so unit tests run it under Node.
 *
 * A catalog maps a key to a text or, for a text about a number, to its plural forms keyed by the
 * locale's `Intl.PluralRules` categories (`one`, `few`, `many`, `other`…). `{name}` marks a
 * placeholder; the same placeholders appear in every language (test/unit/ui/catalogs.test.ts).
 */
import en from '../locales/en.json';

/** A text, or the plural forms of one (`{ one: '…', other: '…' }`). */
export type Message = string | Readonly<Record<string, string>>;
export type Catalog = Readonly<Record<string, Message>>;

/** Every key of the English catalog except its `_` meta entries (the language's own name…). */
export type MessageKey = Exclude<keyof typeof en, `_${string}`>;

/** What a placeholder can be filled with: text, a number (formatted for the locale), or a DOM node the caller built. */
export type Param<N> = string | number | N;

const ENGLISH: Catalog = en;

let current = { locale: 'en', catalog: ENGLISH };

/** The locale the words come from now (`en` until {@link useCatalog} says otherwise). */
export function locale(): string {
  return current.locale;
}

/** Makes `catalog` the source of every text from now on; keys it lacks fall back to English. */
export function useCatalog(tag: string, catalog: Catalog): void {
  current = { locale: tag, catalog };
}

/** The text of `key`, its plural form picked for `count` (when the message has forms), in the current locale, else English. */
function template(key: MessageKey, count: number | undefined): { text: string; locale: string } {
  for (const [tag, catalog] of [
    [current.locale, current.catalog],
    ['en', ENGLISH],
  ] as const) {
    const message = catalog[key];
    if (typeof message === 'string') return { text: message, locale: tag };
    if (message !== undefined && typeof message === 'object') {
      const form = count === undefined ? 'other' : new Intl.PluralRules(tag).select(count);
      const text = message[form] ?? message.other;
      if (typeof text === 'string') return { text, locale: tag };
    }
  }
  return { text: key, locale: 'en' };
}

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

/**
 * The parts of a message with its placeholders filled: text stays text and nodes stay nodes, so a
 * name set in bold (or any value from a query) is never parsed as HTML. A placeholder without a
 * value is left as written, so a missing value shows rather than disappears.
 */
export function tx<N>(key: MessageKey, params: Readonly<Record<string, Param<N>>> = {}): (string | N)[] {
  const count = typeof params.count === 'number' ? params.count : undefined;
  const { text, locale: tag } = template(key, count);
  const parts: (string | N)[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const index = match.index ?? 0;
    if (index > last) parts.push(text.slice(last, index));
    const value = Object.prototype.hasOwnProperty.call(params, match[1]) ? params[match[1]] : undefined;
    if (value === undefined) parts.push(match[0]);
    else if (typeof value === 'number') parts.push(new Intl.NumberFormat(tag).format(value));
    else parts.push(value);
    last = index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/** The text of `key` with its placeholders filled by text or numbers. */
export function t(key: MessageKey, params: Readonly<Record<string, string | number>> = {}): string {
  return tx<never>(key, params).join('');
}

/**
 * A module's texts as one table read by name (`TEXT.heading`), each looked up in the current
 * catalog when it is read (not when the module loads, which is before the catalog arrives), so a
 * module keeps its texts together at its top and still speaks the page's language.
 */
export function messageTable<const M extends Readonly<Record<string, MessageKey>>>(keys: M): { readonly [K in keyof M]: string } {
  const table = {} as { [K in keyof M]: string };
  for (const name of Object.keys(keys) as (keyof M & string)[]) Object.defineProperty(table, name, { enumerable: true, get: () => t(keys[name]) });
  return table;
}

/**
 * How long until the wait is over, as the locale says it ("in 5 minutes", "in 5 Minuten",
 * "5 分後", "خلال 5 دقائق"): seconds, minutes or hours, rounded up so the wait is never understated.
 */
export function waitPhrase(seconds: number, tag: string = current.locale): string {
  const s = Math.max(1, Math.ceil(seconds));
  const format = new Intl.RelativeTimeFormat(tag, { numeric: 'always' });
  if (s < 60) return format.format(s, 'second');
  const m = Math.ceil(s / 60);
  if (m < 60) return format.format(m, 'minute');
  return format.format(Math.ceil(m / 60), 'hour');
}

/**
 * How long ago `at` was, as the locale says it ("now", "5 minutes ago", "vor 2 Stunden", "3 日前"):
 * seconds, minutes, hours or days, rounded down. A time in the future (a clock ahead) reads as now.
 */
export function agoPhrase(at: number, now: number, tag: string = current.locale): string {
  const format = new Intl.RelativeTimeFormat(tag, { numeric: 'auto' });
  const s = Math.max(0, Math.floor((now - at) / 1000));
  if (s < 60) return format.format(s < 10 ? 0 : -s, 'second');
  const m = Math.floor(s / 60);
  if (m < 60) return format.format(-m, 'minute');
  const hours = Math.floor(m / 60);
  if (hours < 24) return format.format(-hours, 'hour');
  return format.format(-Math.floor(hours / 24), 'day');
}

/** A list of names (groups…) joined as the locale writes lists ("a, b, and c"; "a、b、c"; "a وb وc"), or alternatives ("a or b"). */
export function listOf(items: readonly string[], tag: string = current.locale, type: 'conjunction' | 'disjunction' = 'conjunction'): string {
  return new Intl.ListFormat(tag, { style: 'long', type }).format(items);
}

/**
 * The catalog for a visitor: the first of `preferred` (the browser's languages, most wanted first)
 * that one of `available` serves, matched exactly, else by language and script (`de-AT` gets `de`,
 * `zh-CN` gets `zh-Hans` but `zh-TW` does not, `pt-PT` gets `pt-BR`); `fallback` when none does.
 */
export function negotiate(preferred: readonly string[], available: readonly string[], fallback: string): string {
  const key = (tag: string): string | null => {
    try {
      const max = new Intl.Locale(tag).maximize();
      return `${max.language}-${max.script ?? ''}`;
    } catch {
      return null;
    }
  };
  const keys = available.map((a) => ({ tag: a, key: key(a) }));
  for (const wanted of preferred) {
    const exact = available.find((a) => a.toLowerCase() === wanted.toLowerCase());
    if (exact !== undefined) return exact;
    const k = key(wanted);
    const near = k === null ? undefined : keys.find((a) => a.key === k);
    if (near !== undefined) return near.tag;
  }
  return fallback;
}

/**
 * The language to show: `forced` (UI_LANGUAGE) when it names one we have; otherwise the menu's
 * languages (UI_LANGUAGES, or all) and among them the remembered choice, then the browser's
 * preference, then English or the first of the menu.
 */
export function chooseLanguage(input: {
  readonly available: readonly string[];
  readonly forced: string;
  readonly allowed: readonly string[];
  readonly remembered: string | null;
  readonly preferred: readonly string[];
}): { readonly language: string; readonly menu: readonly string[] } {
  const { available } = input;
  if (input.forced !== '') {
    const forced = negotiate([input.forced], available, '');
    if (forced !== '') return { language: forced, menu: [forced] };
  }
  const allowed = input.allowed.map((a) => negotiate([a], available, '')).filter((a, i, all) => a !== '' && all.indexOf(a) === i);
  const menu = allowed.length > 0 ? allowed : available;
  const fallback = menu.includes('en') ? 'en' : menu[0];
  const remembered = input.remembered !== null && menu.includes(input.remembered) ? input.remembered : null;
  return { language: remembered ?? negotiate(input.preferred, menu, fallback), menu };
}

/** Right-to-left scripts among the catalogs' languages (the catalog's `_direction` says so too). */
export function directionOf(catalog: Catalog): 'ltr' | 'rtl' {
  return catalog._direction === 'rtl' ? 'rtl' : 'ltr';
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A message catalog as the UI reads it (ui/locales/<tag>.json): text, or plural forms of one. */
export type CatalogFile = Record<string, string | Record<string, string>>;

const ROOT = join(__dirname, '..', '..');
export const LOCALES_DIR = join(ROOT, 'ui', 'locales');
const UI_SOURCES = join(ROOT, 'ui', 'src');

/** Every catalog by its tag (the file name). */
export function readCatalogs(): Record<string, CatalogFile> {
  return Object.fromEntries(
    readdirSync(LOCALES_DIR)
      .filter((f) => f.endsWith('.json'))
      .map((f) => [f.slice(0, -'.json'.length), JSON.parse(readFileSync(join(LOCALES_DIR, f), 'utf8')) as CatalogFile]),
  );
}

/** The text of every UI source file (ui/src, recursively), where the keys must appear as quoted literals. */
export function readUiSources(dir = UI_SOURCES): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((entry) =>
      entry.isDirectory() ? readUiSources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? readFileSync(join(dir, entry.name), 'utf8') : '',
    )
    .join('\n');
}

const isMeta = (key: string): boolean => key.startsWith('_');

function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{([A-Za-z][A-Za-z0-9_]*)\}/g)].map((m) => m[1]))].sort();
}

/**
 * What is wrong with one catalog against the English one: a key English has and it lacks, a key
 * English does not have, a text where English has plural forms (or the reverse), plural forms other
 * than the categories `Intl.PluralRules` gives its locale, and placeholders that differ from
 * English's (a plural form other than `other` may leave `{count}` out: "eine Sitzung").
 */
export function catalogProblems(tag: string, catalog: CatalogFile, english: CatalogFile): string[] {
  const problems: string[] = [];
  if (typeof catalog._language !== 'string' || catalog._language.trim() === '') problems.push(`${tag}: _language (the language's own name) is missing`);
  if (catalog._direction !== 'ltr' && catalog._direction !== 'rtl') problems.push(`${tag}: _direction must be "ltr" or "rtl"`);
  const categories = new Intl.PluralRules(tag).resolvedOptions().pluralCategories.slice().sort();
  for (const key of Object.keys(english).filter((k) => !isMeta(k))) {
    if (!(key in catalog)) {
      problems.push(`${tag}: missing key ${key}`);
      continue;
    }
    const want = english[key];
    const got = catalog[key];
    const wanted = placeholders(typeof want === 'string' ? want : (want.other ?? ''));
    if (typeof want === 'string') {
      if (typeof got !== 'string') problems.push(`${tag}: ${key} must be a text, as in English`);
      else if (placeholders(got).join() !== wanted.join())
        problems.push(`${tag}: ${key} has placeholders {${placeholders(got).join('}, {')}} where English has {${wanted.join('}, {')}}`);
      continue;
    }
    if (typeof got !== 'object' || got === null) {
      problems.push(`${tag}: ${key} must have plural forms, as in English`);
      continue;
    }
    const forms = Object.keys(got).sort();
    if (forms.join() !== categories.join()) problems.push(`${tag}: ${key} has plural forms ${forms.join(', ')} where ${tag} needs ${categories.join(', ')}`);
    for (const [form, text] of Object.entries(got)) {
      const found = placeholders(text);
      const allowed = form === 'other' ? wanted : wanted.filter((p) => p !== 'count' || found.includes('count'));
      if (found.join() !== allowed.join())
        problems.push(`${tag}: ${key} (${form}) has placeholders {${found.join('}, {')}} where English has {${wanted.join('}, {')}}`);
    }
  }
  for (const key of Object.keys(catalog).filter((k) => !isMeta(k))) if (!(key in english)) problems.push(`${tag}: key ${key} is not in English`);
  return problems;
}

/** English keys no UI source names as a quoted literal ('key'): texts nobody shows. */
export function unusedKeys(english: CatalogFile, sources: string): string[] {
  return Object.keys(english).filter((key) => !isMeta(key) && !sources.includes(`'${key}'`));
}

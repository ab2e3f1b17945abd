import { UI_LANGUAGE_TAGS } from '../../../src/domain/ui-languages';
import { catalogProblems, readCatalogs, readUiSources, unusedKeys, type CatalogFile } from '../../support/catalogs';

/**
 * The message catalogs (ui/locales): every language has exactly English's keys, the same
 * placeholders, the plural forms its locale needs, and no key is left that the UI never shows.
 */
const catalogs = readCatalogs();
const english = catalogs.en;

describe('the message catalogs', () => {
  test('are the languages the gateway offers (UI_LANGUAGE / UI_LANGUAGES accept exactly these)', () => {
    expect(Object.keys(catalogs).sort()).toEqual([...UI_LANGUAGE_TAGS].sort());
  });

  test.each(Object.keys(catalogs))('%s has every key of English, nothing more, and the same placeholders and its plural forms', (tag) => {
    expect(catalogProblems(tag, catalogs[tag], english)).toEqual([]);
  });

  test('every English key is used by the UI (named as a quoted literal in ui/src)', () => {
    expect(unusedKeys(english, readUiSources())).toEqual([]);
  });

  test('Arabic is written right to left, the others left to right', () => {
    for (const [tag, catalog] of Object.entries(catalogs)) expect([tag, catalog._direction]).toEqual([tag, tag === 'ar' ? 'rtl' : 'ltr']);
  });
});

describe('the catalog checks themselves', () => {
  const base: CatalogFile = {
    _language: 'Testisch',
    _direction: 'ltr',
    'a.text': 'Hello {name}',
    'a.count': { one: '{count} thing', other: '{count} things' },
  };

  test('a key of English that a catalog lacks is reported', () => {
    const rest = Object.fromEntries(Object.entries(base).filter(([key]) => key !== 'a.text'));
    expect(catalogProblems('de', rest, base)).toEqual(['de: missing key a.text']);
  });

  test('a key English does not have is reported', () => {
    expect(catalogProblems('de', { ...base, 'a.extra': 'x' }, base)).toEqual(['de: key a.extra is not in English']);
  });

  test('a placeholder renamed, dropped or added is reported', () => {
    expect(catalogProblems('de', { ...base, 'a.text': 'Hallo {nom}' }, base)).toEqual(['de: a.text has placeholders {nom} where English has {name}']);
    expect(catalogProblems('de', { ...base, 'a.text': 'Hallo' }, base)).toHaveLength(1);
    expect(catalogProblems('de', { ...base, 'a.count': { one: 'ein Ding {name}', other: '{count} Dinge' } }, base)).toHaveLength(1);
  });

  test("plural forms must be the locale's categories: Polish needs few and many, Japanese only other", () => {
    expect(catalogProblems('pl', base, base)).toEqual(['pl: a.count has plural forms one, other where pl needs few, many, one, other']);
    expect(catalogProblems('ja', base, base)).toEqual(['ja: a.count has plural forms one, other where ja needs other']);
    expect(catalogProblems('ja', { ...base, 'a.count': { other: '{count} 個' } }, base)).toEqual([]);
  });

  test('a form other than "other" may leave the count out, "other" may not', () => {
    expect(catalogProblems('de', { ...base, 'a.count': { one: 'ein Ding', other: '{count} Dinge' } }, base)).toEqual([]);
    expect(catalogProblems('de', { ...base, 'a.count': { one: '{count} Ding', other: 'Dinge' } }, base)).toHaveLength(1);
  });

  test('a key no source names is unused', () => {
    expect(unusedKeys(base, "t('a.text'); t('a.count', { count: 2 })")).toEqual([]);
    expect(unusedKeys(base, "t('a.text')")).toEqual(['a.count']);
  });
});

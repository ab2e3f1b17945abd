import { agoPhrase, chooseLanguage, listOf, locale, messageTable, negotiate, t, tx, useCatalog, waitPhrase } from '../../../ui/src/i18n';

const ALL = ['en', 'de', 'fr', 'es', 'pt-BR', 'it', 'nl', 'pl', 'ja', 'zh-Hans', 'ar'];

afterEach(() => useCatalog('en', {}));

describe('negotiate', () => {
  test('takes the first preferred language there is a catalog for, exactly or by language and script', () => {
    expect(negotiate(['de-DE', 'en'], ALL, 'en')).toBe('de');
    expect(negotiate(['ja-JP'], ALL, 'en')).toBe('ja');
    expect(negotiate(['ar'], ALL, 'en')).toBe('ar');
    expect(negotiate(['pt-BR'], ALL, 'en')).toBe('pt-BR');
    expect(negotiate(['pt-PT'], ALL, 'en')).toBe('pt-BR');
    expect(negotiate(['zh-CN'], ALL, 'en')).toBe('zh-Hans');
    expect(negotiate(['zh'], ALL, 'en')).toBe('zh-Hans');
  });

  test('never gives a reader of another script a catalog they cannot read', () => {
    expect(negotiate(['zh-TW', 'en-US'], ALL, 'en')).toBe('en');
    expect(negotiate(['sr-Cyrl'], ALL, 'en')).toBe('en');
  });

  test('skips languages without a catalog and tags that are not tags', () => {
    expect(negotiate(['sv-SE', 'not a tag!', 'nl-BE'], ALL, 'en')).toBe('nl');
    expect(negotiate([], ALL, 'fr')).toBe('fr');
  });
});

describe('chooseLanguage', () => {
  const base = { available: ALL, forced: '', allowed: [], remembered: null, preferred: ['de-DE'] };

  test("the browser's language, with every language in the menu", () => {
    expect(chooseLanguage(base)).toEqual({ language: 'de', menu: ALL });
  });

  test('a choice remembered in this browser wins over its languages', () => {
    expect(chooseLanguage({ ...base, remembered: 'ja' }).language).toBe('ja');
  });

  test('UI_LANGUAGE forces one language and leaves nothing to choose', () => {
    expect(chooseLanguage({ ...base, forced: 'fr', remembered: 'ja' })).toEqual({ language: 'fr', menu: ['fr'] });
  });

  test('UI_LANGUAGES limits the menu; a remembered or preferred language outside it gives way to the first listed', () => {
    expect(chooseLanguage({ ...base, allowed: ['fr', 'it'], remembered: 'ja' })).toEqual({ language: 'fr', menu: ['fr', 'it'] });
    expect(chooseLanguage({ ...base, allowed: ['it', 'de'] })).toEqual({ language: 'de', menu: ['it', 'de'] });
  });
});

describe('texts', () => {
  test('English is there before any catalog loads', () => {
    expect(locale()).toBe('en');
    expect(t('login.heading')).toBe('Log in');
  });

  test('placeholders take text and numbers; a node stays a node', () => {
    expect(t('login.withProvider', { provider: 'GitHub' })).toBe('Continue with GitHub');
    const node = { node: true };
    expect(tx('account.lead', { user: node })).toEqual(['You are logged in as ', node, '.']);
  });

  test('plural forms follow Intl.PluralRules of the locale', () => {
    expect(t('account.signedOut', { count: 1 })).toBe('Signed out 1 session');
    expect(t('account.signedOut', { count: 2 })).toBe('Signed out 2 sessions');
    useCatalog('pl', {
      'account.signedOut': { one: 'Wylogowano {count} sesję', few: 'Wylogowano {count} sesje', many: 'Wylogowano {count} sesji', other: 'x' },
    });
    expect(t('account.signedOut', { count: 1 })).toBe('Wylogowano 1 sesję');
    expect(t('account.signedOut', { count: 3 })).toBe('Wylogowano 3 sesje');
    expect(t('account.signedOut', { count: 5 })).toBe('Wylogowano 5 sesji');
    expect(t('account.signedOut', { count: 22 })).toBe('Wylogowano 22 sesje');
  });

  test('a key the chosen catalog lacks falls back to English', () => {
    useCatalog('de', { 'login.heading': 'Anmelden' });
    expect(t('login.heading')).toBe('Anmelden');
    expect(t('login.password')).toBe('Password');
  });
});

describe('agoPhrase', () => {
  const now = Date.UTC(2026, 11, 3, 8, 0, 0);
  test('says how long ago, rounded down to seconds, minutes, hours or days; a future time is now', () => {
    expect(agoPhrase(now - 3_000, now, 'en')).toBe('now');
    expect(agoPhrase(now + 60_000, now, 'en')).toBe('now');
    expect(agoPhrase(now - 42_000, now, 'en')).toBe('42 seconds ago');
    expect(agoPhrase(now - 119_000, now, 'en')).toBe('1 minute ago');
    expect(agoPhrase(now - 3 * 3_600_000 - 5, now, 'en')).toBe('3 hours ago');
    expect(agoPhrase(now - 26 * 3_600_000, now, 'en')).toBe('yesterday');
    expect(agoPhrase(now - 5 * 86_400_000, now, 'en')).toBe('5 days ago');
  });

  test('is said the way each language says it', () => {
    expect(agoPhrase(now - 300_000, now, 'de')).toBe('vor 5 Minuten');
    expect(agoPhrase(now - 300_000, now, 'ja')).toBe('5 分前');
    expect(agoPhrase(now - 300_000, now, 'ar')).toMatch(/دقائق/);
  });
});

describe('waitPhrase', () => {
  test('rounds up to seconds, minutes or hours so the wait is never understated', () => {
    expect(waitPhrase(1, 'en')).toBe('in 1 second');
    expect(waitPhrase(42, 'en')).toBe('in 42 seconds');
    expect(waitPhrase(60, 'en')).toBe('in 1 minute');
    expect(waitPhrase(61, 'en')).toBe('in 2 minutes');
    expect(waitPhrase(300, 'en')).toBe('in 5 minutes');
    expect(waitPhrase(3600, 'en')).toBe('in 1 hour');
    expect(waitPhrase(7201, 'en')).toBe('in 3 hours');
  });

  test('is said the way each language says it (Intl.RelativeTimeFormat)', () => {
    expect(waitPhrase(300, 'de')).toBe('in 5 Minuten');
    expect(waitPhrase(300, 'ja')).toBe('5 分後');
    expect(waitPhrase(300, 'pl')).toBe('za 5 minut');
    expect(waitPhrase(300, 'ar')).toMatch(/دقائق/);
  });
});

describe('listOf', () => {
  test('joins names as the language writes lists', () => {
    expect(listOf(['admins', 'ops'], 'en')).toBe('admins and ops');
    expect(listOf(['admins', 'ops', 'dev'], 'ja')).toBe('admins、ops、dev');
  });
});

describe('messageTable', () => {
  test('reads each text when it is used, so a catalog loaded after the module still counts', () => {
    const TEXT = messageTable({ heading: 'login.heading', submit: 'login.submit' });
    expect(TEXT.heading).toBe('Log in');
    useCatalog('de', { 'login.heading': 'Anmelden' });
    expect(TEXT.heading).toBe('Anmelden');
    expect(TEXT.submit).toBe('Log in');
    expect(Object.keys(TEXT)).toEqual(['heading', 'submit']);
  });
});

import type { ForgotPasswordStores } from '../../../src/adapters/http/app-context';
import { defaultForgotPasswordMessage } from '../../../src/config/ui';
import type { Answer } from '../../../ui/src/answer';
import { messageTable, useCatalog } from '../../../ui/src/i18n';
import { commonProblem, defaultForgotPasswordText, problemText } from '../../../ui/src/messages';

const answerOf = (fields: Partial<Answer<string>>): Answer<string> => ({ status: 500, code: '', message: '', body: {}, retryAfter: null, ...fields });

describe('commonProblem', () => {
  test('tells a locked person the wait the gateway gave as a number', () => {
    expect(
      commonProblem(answerOf({ status: 429, code: 'account_locked', retryAfter: 120, message: 'Too many failed login attempts. Try again in 120 seconds' })),
    ).toBe('Too many failed login attempts. Try again in 2 minutes.');
  });

  test('never reads the wait out of the message text', () => {
    expect(commonProblem(answerOf({ status: 429, code: 'account_locked', message: 'Too many failed login attempts. Try again in 300 seconds' }))).toBe(
      'Too many failed login attempts. Wait a few minutes, then try again.',
    );
  });

  test('decides on the code, not the status', () => {
    expect(commonProblem(answerOf({ status: 503, code: 'store_unavailable' }))).toContain('unavailable right now');
    expect(commonProblem(answerOf({ status: 503, code: 'not_ready', message: 'Not ready' }))).toBe('Something went wrong: Not ready');
  });
});

describe('defaultForgotPasswordText', () => {
  const stores = (over: Partial<ForgotPasswordStores>): ForgotPasswordStores => ({ users: false, usersFile: false, ldap: false, providers: [], ...over });

  test.each([
    ['USERS only', stores({ users: true })],
    ['USERS and the users file', stores({ users: true, usersFile: true })],
    ['LDAP and two providers', stores({ ldap: true, providers: ['GitHub', 'Pocket ID'] })],
    ['every store', stores({ users: true, usersFile: true, ldap: true, providers: ['Google'] })],
    ['nothing named', stores({})],
  ])("in English is the gateway's own default text (%s)", (_name, s) => {
    expect(defaultForgotPasswordText(s)).toBe(defaultForgotPasswordMessage(s));
  });

  test("is said in the page's language", () => {
    useCatalog('de', {
      'forgot.local': 'Konten werden von der Administration in {stores} eingerichtet.',
      'forgot.storeUsers': 'der Umgebungsvariablen USERS',
      'forgot.storeFile': 'der Benutzerdatei des Gateways',
    });
    expect(defaultForgotPasswordText(stores({ users: true, usersFile: true }))).toBe(
      'Konten werden von der Administration in der Umgebungsvariablen USERS und der Benutzerdatei des Gateways eingerichtet.',
    );
    useCatalog('en', {});
  });
});

describe('commonProblem in another language', () => {
  afterEach(() => useCatalog('en', {}));

  test("tells the lock's wait the way the language says it", () => {
    useCatalog('ja', { 'problem.account_locked': 'ログインの失敗が多すぎます。{wait}にもう一度お試しください。' });
    expect(commonProblem(answerOf({ status: 429, code: 'account_locked', retryAfter: 300 }))).toBe(
      'ログインの失敗が多すぎます。5 分後にもう一度お試しください。',
    );
  });
});

describe('problemText', () => {
  const texts = messageTable({ totp_invalid: 'totpSetup.wrongCode', not_logged_in: 'totpSetup.sessionEnded' });
  afterEach(() => useCatalog('en', {}));

  test("answers a code of the form's table with the form's own text, in the page's language when the table is read", () => {
    useCatalog('de', { 'totpSetup.wrongCode': 'Dieser Code stimmt nicht.' });
    expect(problemText(answerOf({ status: 401, code: 'totp_invalid', message: 'Invalid TOTP code' }), texts)).toBe('Dieser Code stimmt nicht.');
  });

  test('answers any other code with the common text (lockout, outage, the message of a code it does not know)', () => {
    expect(problemText(answerOf({ status: 503, code: 'store_unavailable' }), texts)).toBe(commonProblem(answerOf({ status: 503, code: 'store_unavailable' })));
    expect(problemText(answerOf({ status: 400, code: 'no_such_code', message: 'Odd' }), texts)).toBe('Something went wrong: Odd');
  });

  test("never reads a code as one of the table's inherited properties", () => {
    expect(problemText(answerOf({ status: 400, code: 'constructor', message: 'Odd' }), texts)).toBe('Something went wrong: Odd');
    expect(problemText(answerOf({ status: 400, code: 'toString', message: 'Odd' }), texts)).toBe('Something went wrong: Odd');
  });
});

import type { Answer } from '../../../ui/src/answer';
import { commonProblem } from '../../../ui/src/messages';

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

import { auditCursorOf, readAuditQuestion } from '../../../src/adapters/http/admin-audit-routes';
import { auditEventId } from '../../../src/domain/audit-event-id';

describe('the audit trail query string', () => {
  it('reads every filter, the limit and the cursor', () => {
    const id = auditEventId(Date.UTC(2026, 11, 1), '0001abcdef');
    expect(
      readAuditQuestion(
        { username: ' ann ', event: 'login_failed', since: '2026-12-01', before: '2026-12-02T10:30:00+01:00', limit: '20', cursor: auditCursorOf(id) },
        true,
      ),
    ).toEqual({
      filters: { username: 'ann', event: 'login_failed', since: Date.UTC(2026, 11, 1), before: Date.UTC(2026, 11, 2, 9, 30) },
      limit: 20,
      after: id,
    });
  });

  it('asks for 50 events of everyone when nothing is given', () => {
    expect(readAuditQuestion({}, true)).toEqual({ filters: {}, limit: 50 });
  });

  it('reads a date and time without a zone as UTC, like a date alone', () => {
    expect(readAuditQuestion({ since: '2026-12-01T09:30' }, true)).toMatchObject({ filters: { since: Date.UTC(2026, 11, 1, 9, 30) } });
  });

  it('names every parameter that is wrong, once', () => {
    expect(readAuditQuestion({ since: 'yesterday', before: '1700000000', limit: '501', cursor: 'AAAA', username: ['a', 'b'] }, true)).toEqual([
      'username',
      'since',
      'before',
      'limit',
      'cursor',
    ]);
    expect(readAuditQuestion({ limit: '0' }, true)).toEqual(['limit']);
    expect(readAuditQuestion({ event: 'DROP TABLE' }, true)).toEqual(['event']);
  });

  it('takes no limit or cursor for an export', () => {
    expect(readAuditQuestion({ limit: '5', cursor: 'x' }, false)).toEqual(['limit', 'cursor']);
    expect(readAuditQuestion({ username: 'ann' }, false)).toEqual({ filters: { username: 'ann' }, limit: 50 });
  });
});

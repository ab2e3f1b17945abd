/**
 * The id of an event in the audit trail (issue 36): the time it was recorded (ms, 11 base-36
 * digits) then 10 more characters that tell apart events of the same millisecond (a sequence and
 * randomness, chosen by the recorder). Ids therefore sort like the times they were recorded at,
 * and a page boundary ("older than this id") needs no second column.
 */
export const AUDIT_EVENT_ID = /^[0-9a-z]{21}$/;

export function auditEventId(time: number, suffix: string): string {
  return `${Math.max(0, Math.floor(time)).toString(36).padStart(11, '0')}${suffix}`.slice(0, 21).padEnd(21, '0');
}

import { DAY_MS, nextReminderDue } from './document-timers.reactor';

describe('nextReminderDue', () => {
  const sent = '2026-03-02T09:00:00.000Z';
  const days = (n: number) => new Date(Date.parse(sent) + n * DAY_MS).toISOString();

  it('is interval days after the previous reminder, strictly before expiry', () => {
    expect(nextReminderDue(sent, 1, days(3))).toBe(days(1));
    expect(nextReminderDue(days(2), 1, days(3))).toBeNull();
    expect(nextReminderDue(sent, 3, days(3))).toBeNull();
    expect(nextReminderDue(sent, 2, days(3))).toBe(days(2));
  });

  it('is off without an interval, and unbounded without an expiry', () => {
    expect(nextReminderDue(sent, null, days(10))).toBeNull();
    expect(nextReminderDue(sent, undefined, days(10))).toBeNull();
    expect(nextReminderDue(sent, 0, days(10))).toBeNull();
    expect(nextReminderDue(sent, 7, null)).toBe(days(7));
  });
});

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

  it('waits out the organization\'s quiet hours, and drops a reminder pushed past the expiry', () => {
    const seoulNight = { timeZone: 'Asia/Seoul', hours: { start: '21:00', end: '08:00' } };
    // Sent 22:30 KST: a day later is 22:30 KST again, so it goes at 08:00 KST the morning after.
    expect(nextReminderDue('2026-03-02T13:30:00.000Z', 1, null, seoulNight)).toBe('2026-03-03T23:00:00.000Z');
    // Daytime: unchanged.
    expect(nextReminderDue(sent, 1, null, seoulNight)).toBe(days(1));
    // Deferred past the expiry: none.
    expect(nextReminderDue('2026-03-02T13:30:00.000Z', 1, '2026-03-03T20:00:00.000Z', seoulNight)).toBeNull();
    // New York across spring-forward: 23:00 EST on 7 March → 8 March 08:00 EDT.
    expect(nextReminderDue('2026-03-07T04:00:00.000Z', 1, null, { timeZone: 'America/New_York', hours: { start: '21:00', end: '08:00' } })).toBe('2026-03-08T12:00:00.000Z');
    // Quiet hours off.
    expect(nextReminderDue('2026-03-02T13:30:00.000Z', 1, null, { timeZone: 'Asia/Seoul', hours: null })).toBe('2026-03-03T13:30:00.000Z');
  });
});

import {
  calendarDateInZone,
  deferPastQuietHours,
  endOfDayInZone,
  formatZonedDateTime,
  isValidTimeZone,
  parseCalendarDate,
  zonedInstant,
} from './zoned-time';

const NIGHT = { start: '21:00', end: '08:00' };

describe('zoned time', () => {
  it('knows IANA zones and refuses anything else', () => {
    expect(isValidTimeZone('Asia/Seoul')).toBe(true);
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
    expect(isValidTimeZone(9)).toBe(false);
  });

  it('reads calendar dates strictly', () => {
    expect(parseCalendarDate('2026-12-10')).toEqual({ year: 2026, month: 12, day: 10 });
    expect(parseCalendarDate('2026-02-30')).toBeNull();
    expect(parseCalendarDate('2026-12-10T00:00:00Z')).toBeNull();
  });

  describe('end of day', () => {
    it('is 23:59:59.999 in Seoul (UTC+9, no DST)', () => {
      expect(endOfDayInZone('2026-12-10', 'Asia/Seoul')).toBe('2026-12-10T14:59:59.999Z');
    });

    it('follows New York across both DST changes', () => {
      // Winter: UTC-5.
      expect(endOfDayInZone('2026-01-15', 'America/New_York')).toBe('2026-01-16T04:59:59.999Z');
      // The spring-forward day (8 March 2026) is 23 hours long and ends in EDT (UTC-4).
      expect(endOfDayInZone('2026-03-08', 'America/New_York')).toBe('2026-03-09T03:59:59.999Z');
      // The fall-back day (1 November 2026) is 25 hours long and ends in EST.
      expect(endOfDayInZone('2026-11-01', 'America/New_York')).toBe('2026-11-02T04:59:59.999Z');
    });

    it('gives the local calendar day back', () => {
      expect(calendarDateInZone(Date.parse(endOfDayInZone('2026-12-10', 'Asia/Seoul')), 'Asia/Seoul')).toBe('2026-12-10');
      expect(calendarDateInZone(Date.parse('2026-12-10T15:00:00Z'), 'Asia/Seoul')).toBe('2026-12-11');
    });
  });

  describe('wall clock to instant', () => {
    it('puts a time skipped by spring-forward just past the gap', () => {
      // 02:30 does not exist in New York on 8 March 2026: it reads as 03:30 EDT.
      expect(new Date(zonedInstant({ year: 2026, month: 3, day: 8, hour: 2, minute: 30, second: 0 }, 'America/New_York')).toISOString()).toBe('2026-03-08T07:30:00.000Z');
    });

    it('takes the first of a repeated fall-back time', () => {
      expect(new Date(zonedInstant({ year: 2026, month: 11, day: 1, hour: 1, minute: 30, second: 0 }, 'America/New_York')).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    });
  });

  describe('quiet hours', () => {
    it('leaves a daytime reminder alone', () => {
      expect(deferPastQuietHours('2026-12-10T03:00:00.000Z', 'Asia/Seoul', NIGHT)).toBe('2026-12-10T03:00:00.000Z'); // 12:00 KST
    });

    it('moves a late-evening reminder to 08:00 the next morning', () => {
      expect(deferPastQuietHours('2026-12-10T13:00:00.000Z', 'Asia/Seoul', NIGHT)).toBe('2026-12-10T23:00:00.000Z'); // 22:00 → 08:00 KST
    });

    it('moves an after-midnight reminder to 08:00 the same morning', () => {
      expect(deferPastQuietHours('2026-12-10T20:00:00.000Z', 'Asia/Seoul', NIGHT)).toBe('2026-12-10T23:00:00.000Z'); // 05:00 → 08:00 KST
    });

    it('counts the start as quiet and the end as not', () => {
      expect(deferPastQuietHours('2026-12-10T12:00:00.000Z', 'Asia/Seoul', NIGHT)).toBe('2026-12-10T23:00:00.000Z'); // 21:00 sharp
      expect(deferPastQuietHours('2026-12-10T23:00:00.000Z', 'Asia/Seoul', NIGHT)).toBe('2026-12-10T23:00:00.000Z'); // 08:00 sharp
    });

    it('ends at 08:00 local on the New York spring-forward morning (EDT, not EST)', () => {
      // 00:00 EST on 8 March; the clocks jump at 02:00, so 08:00 that morning is 12:00 UTC.
      expect(deferPastQuietHours('2026-03-08T05:00:00.000Z', 'America/New_York', NIGHT)).toBe('2026-03-08T12:00:00.000Z');
      // 22:00 EST the evening before: the same morning.
      expect(deferPastQuietHours('2026-03-08T03:00:00.000Z', 'America/New_York', NIGHT)).toBe('2026-03-08T12:00:00.000Z');
    });

    it('ends at 08:00 EST on the fall-back morning', () => {
      expect(deferPastQuietHours('2026-11-01T06:00:00.000Z', 'America/New_York', NIGHT)).toBe('2026-11-01T13:00:00.000Z');
    });

    it('handles a daytime window and none at all', () => {
      const lunch = { start: '12:00', end: '13:00' };
      expect(deferPastQuietHours('2026-12-10T03:30:00.000Z', 'Asia/Seoul', lunch)).toBe('2026-12-10T04:00:00.000Z');
      expect(deferPastQuietHours('2026-12-10T13:00:00.000Z', 'Asia/Seoul', null)).toBe('2026-12-10T13:00:00.000Z');
      expect(deferPastQuietHours('2026-12-10T13:00:00.000Z', 'Asia/Seoul', { start: '00:00', end: '00:00' })).toBe('2026-12-10T13:00:00.000Z');
    });
  });

  describe('formatting', () => {
    it('always names the zone', () => {
      expect(formatZonedDateTime('2026-12-10T14:59:59.999Z', 'Asia/Seoul', 'ko')).toBe('2026년 12월 10일 오후 11:59 (KST)');
      expect(formatZonedDateTime('2026-12-10T14:59:59.999Z', 'Asia/Seoul', 'en')).toBe('December 10, 2026, 11:59 PM KST');
      expect(formatZonedDateTime('2026-07-01T12:00:00Z', 'America/New_York', 'en')).toBe('July 1, 2026, 8:00 AM EDT');
      expect(formatZonedDateTime('2026-01-01T12:00:00Z', 'America/New_York', 'en')).toBe('January 1, 2026, 7:00 AM EST');
      expect(formatZonedDateTime('2026-01-01T00:00:00Z', 'UTC', 'ko')).toBe('2026년 1월 1일 오전 12:00 (UTC)');
    });
  });
});

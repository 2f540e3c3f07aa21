import { dateIn, formatNumber } from './field-types';
import { zoneAbbreviation } from '../shared/zoned-time';

/**
 * Constructing an Intl formatter loads ICU data (a zoned DateTimeFormat costs hundreds of µs);
 * each shape is made once and reused for every value of every document.
 */
describe('Intl formatters are made once per shape', () => {
  afterEach(() => jest.restoreAllMocks());

  it('dateIn: one formatter per zone, the same dates as before', () => {
    const made = jest.spyOn(Intl, 'DateTimeFormat');
    expect(dateIn('2026-11-28T15:30:00.000Z', 'Asia/Seoul')).toBe('2026-11-29');
    expect(dateIn('2026-11-28T14:59:59.000Z', 'Asia/Seoul')).toBe('2026-11-28');
    expect(dateIn('2026-11-28T15:30:00.000Z', 'America/New_York')).toBe('2026-11-28');
    for (let i = 0; i < 10; i++) dateIn('2026-11-28T15:30:00.000Z', 'Asia/Seoul');
    // Seoul's and New York's, each once.
    expect(made.mock.calls.map(([, o]) => o?.timeZone)).toEqual(['Asia/Seoul', 'America/New_York']);
    expect(() => dateIn('2026-11-28T15:30:00.000Z', 'Mars/Olympus')).toThrow(RangeError);
  });

  it('formatNumber: one formatter per format and decimals, every digit kept', () => {
    const made = jest.spyOn(Intl, 'NumberFormat');
    expect(formatNumber('3200000', 'krw', 0)).toBe('₩3,200,000');
    expect(formatNumber('3200000', 'won', 0)).toBe('3,200,000원');
    expect(formatNumber('123456789012345.5', 'grouped', 1)).toBe('123,456,789,012,345.5');
    for (let i = 0; i < 10; i++) formatNumber(String(i * 1000), 'krw', 0);
    expect(made).toHaveBeenCalledTimes(3);
  });

  it('zoneAbbreviation: one formatter per zone, following daylight time', () => {
    const made = jest.spyOn(Intl, 'DateTimeFormat');
    expect(zoneAbbreviation(Date.parse('2026-01-15T12:00:00Z'), 'America/Chicago')).toBe('CST');
    expect(zoneAbbreviation(Date.parse('2026-07-15T12:00:00Z'), 'America/Chicago')).toBe('CDT');
    expect(made).toHaveBeenCalledTimes(1);
  });
});

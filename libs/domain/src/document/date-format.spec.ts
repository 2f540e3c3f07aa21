import { DomainError } from '../shared/domain-error';
import { formatZonedDateTime } from '../shared/zoned-time';
import { initialOrganizationState, organizationDecider, dateFormatOf } from '../organization/organization.decider';
import { DATE_FORMATS, displayValue, formatDate } from './field-types';

/** The organization's date format (issue 32): one setting for every date its documents and messages print. */
describe('date formats', () => {
  it('writes a day in each format', () => {
    expect(DATE_FORMATS.map((f) => formatDate('1995-03-05', f))).toEqual(['1995년 3월 5일', '1995. 3. 5.', '1995.03.05', '1995-03-05']);
  });

  it('prints a date field in the document\'s format unless the field gives its own locale', () => {
    expect(displayValue({ type: 'date' }, '1995-03-15')).toBe('1995년 3월 15일');
    expect(displayValue({ type: 'date' }, '1995-03-15', undefined, 'YYYY.MM.DD')).toBe('1995.03.15');
    expect(displayValue({ type: 'signing_date' }, '2027-01-04', undefined, 'YYYY. M. D.')).toBe('2027. 1. 4.');
    expect(displayValue({ type: 'date', locale: 'en' }, '1995-03-15', undefined, 'YYYY. M. D.')).toBe('1995-03-15');
    expect(displayValue({ type: 'date', locale: 'ko' }, '1995-03-15', undefined, 'YYYY-MM-DD')).toBe('1995년 3월 15일');
  });

  it('writes the date of a time in Korean messages in the format, the time as before', () => {
    const at = '2026-12-10T14:59:00Z';
    expect(formatZonedDateTime(at, 'Asia/Seoul', 'ko')).toBe('2026년 12월 10일 오후 11:59 (KST)');
    expect(formatZonedDateTime(at, 'Asia/Seoul', 'ko', 'YYYY. M. D.')).toBe('2026. 12. 10. 오후 11:59 (KST)');
    expect(formatZonedDateTime(at, 'Asia/Seoul', 'en', 'YYYY.MM.DD')).toBe('December 10, 2026, 11:59 PM KST');
  });

  it('is an organization setting: one of the formats, refused otherwise naming date_format', () => {
    const now = '2026-03-01T00:00:00Z';
    const state = { ...initialOrganizationState(), exists: true };
    expect(dateFormatOf(state)).toBe('YYYY년 M월 D일');
    const events = organizationDecider.decide({ type: 'ChangeDateFormat', date_format: 'YYYY.MM.DD', now }, state);
    expect(events).toEqual([{ type: 'OrganizationDateFormatChanged', data: { date_format: 'YYYY.MM.DD', changed_at: now } }]);
    const changed = events.reduce(organizationDecider.evolve, state);
    expect(dateFormatOf(changed)).toBe('YYYY.MM.DD');
    expect(organizationDecider.decide({ type: 'ChangeDateFormat', date_format: 'YYYY.MM.DD', now }, changed)).toEqual([]);
    for (const bad of ['DD/MM/YYYY', '', 'yyyy-mm-dd']) {
      try {
        organizationDecider.decide({ type: 'ChangeDateFormat', date_format: bad, now }, state);
        throw new Error('not refused');
      } catch (error) {
        expect(error).toBeInstanceOf(DomainError);
        expect(error).toMatchObject({ code: 'invalid_parameter', param: 'date_format' });
      }
    }
  });
});

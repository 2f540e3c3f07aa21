/*
 * Dates as the final PDF, the certificate and form_data print them (issue 32): in the document's
 * date_format (the organization's, recorded at send, given by the signing session), unless the
 * field gives its own locale (ko: 1995년 3월 15일, en: 1995-03-15). The domain's rule
 * (libs/domain/src/document/field-types.ts formatDate, displayValue) lives in a module the page
 * does not bundle (field-types.ts also holds the API's validation); the page bundles only the pure
 * field-rules.ts (field-checks.js). So the page states this rule again, and
 * test/browser/signing-page-date-format.spec.ts holds the two to the same answers.
 */

export var DATE_FORMATS = ['YYYY년 M월 D일', 'YYYY. M. D.', 'YYYY.MM.DD', 'YYYY-MM-DD'];
export var DEFAULT_DATE_FORMAT = 'YYYY년 M월 D일';

/** A calendar day (YYYY-MM-DD) in one of DATE_FORMATS; an unknown format reads as the default. */
export function formatDay(iso, format) {
  var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) return iso;
  switch (format) {
    case 'YYYY. M. D.':
      return Number(m[1]) + '. ' + Number(m[2]) + '. ' + Number(m[3]) + '.';
    case 'YYYY.MM.DD':
      return m[1] + '.' + m[2] + '.' + m[3];
    case 'YYYY-MM-DD':
      return iso;
    default:
      return Number(m[1]) + '년 ' + Number(m[2]) + '월 ' + Number(m[3]) + '일';
  }
}

/** A date field's value as printed: the field's locale wins, else the document's format. */
export function printedDate(f, iso, documentFormat) {
  if (f.locale === 'en') return iso;
  if (f.locale === 'ko') return formatDay(iso, DEFAULT_DATE_FORMAT);
  return formatDay(iso, documentFormat || DEFAULT_DATE_FORMAT);
}

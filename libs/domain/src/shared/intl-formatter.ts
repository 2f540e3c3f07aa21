/**
 * Intl formatters, made once per shape and kept: constructing one loads ICU data and costs
 * 50–300 µs (a DateTimeFormat with a time zone the most), formatting with it a microsecond or two,
 * and the same few shapes format every date, number and zone name of every document and message.
 * `key` names the shape (its locale, options and zone); the callers' shapes are few and the zones
 * are the IANA zones the runtime knows (an unknown zone throws in `make` and is kept nowhere).
 */
const made = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();

export function intlFormatter<F extends Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => F): F {
  let f = made.get(key) as F | undefined;
  if (!f) {
    f = make();
    made.set(key, f);
  }
  return f;
}

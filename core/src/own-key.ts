/**
 * Lookups and records keyed by outside input. A plain object answers "constructor" or "__proto__" from
 * Object.prototype, and assigning "__proto__" replaces the prototype instead of adding a property; the
 * fuzzers found both. These helpers are the safe forms.
 */
export const ownValue = <T>(table: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined

/** A plain object from entries, every key an own property ("__proto__" included). */
export const recordOf = <T>(entries: Iterable<readonly [string, T]>): Record<string, T> =>
  Object.fromEntries(entries) as Record<string, T>

/** Sets `record[key] = value` as an own property, "__proto__" included (a record built key by key). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
  else record[key] = value
}

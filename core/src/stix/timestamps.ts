/**
 * STIX and TAXII timestamps: RFC 3339 in UTC with `Z` and any number of fraction digits. Text comparison
 * is wrong across precisions ("…:00Z" sorts after "…:00.5Z"), so versions compare through a key with the
 * fraction padded to nine digits, and TAXII's date_added is kept as integer microseconds.
 */
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/

/** A key that sorts as the instant does; undefined for text that is not such a timestamp. */
export function timestampKey(text: string): string | undefined {
  const match = TIMESTAMP.exec(text)
  if (match === null || Number.isNaN(Date.parse(`${match[1]}Z`))) return undefined
  return `${match[1]}.${(match[2] ?? '').padEnd(9, '0')}Z`
}

/** Microseconds since the epoch (digits past the sixth are dropped); undefined when unreadable. */
export function parseMicros(text: string): number | undefined {
  const match = TIMESTAMP.exec(text)
  if (match === null) return undefined
  const ms = Date.parse(`${match[1]}Z`)
  if (Number.isNaN(ms)) return undefined
  return ms * 1000 + Number((match[2] ?? '').padEnd(6, '0').slice(0, 6))
}

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ`, the precision TAXII servers commonly give date_added. */
export function formatMicros(micros: number): string {
  const ms = Math.floor(micros / 1000)
  const seconds = new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)
  return `${seconds}.${String(micros - Math.floor(ms / 1000) * 1_000_000).padStart(6, '0')}Z`
}

/** A STIX object's version: `modified`, else `created`, else '' (objects that are never versioned). */
export function versionOf(object: Record<string, unknown>): string {
  const { modified, created } = object
  return typeof modified === 'string' ? modified : typeof created === 'string' ? created : ''
}

/** Orders two versions by instant; text that is no timestamp sorts before every timestamp, then by text. */
export function compareVersions(a: string, b: string): number {
  const ka = timestampKey(a)
  const kb = timestampKey(b)
  if (ka !== undefined && kb !== undefined) return ka < kb ? -1 : ka > kb ? 1 : 0
  if (ka !== undefined) return 1
  if (kb !== undefined) return -1
  return a < b ? -1 : a > b ? 1 : 0
}

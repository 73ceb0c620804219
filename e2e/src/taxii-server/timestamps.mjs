// TAXII timestamps compared at microsecond precision (`date_added` carries six fraction digits, which a
// millisecond Date would collapse), as BigInt microseconds since the epoch.

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/

/**
 * @param {string} text an RFC 3339 UTC timestamp ending in `Z`
 * @returns {bigint | undefined} microseconds since the epoch; undefined when unreadable
 */
export function parseTimestamp(text) {
  const match = TIMESTAMP.exec(text)
  if (match === null) return undefined
  const seconds = Date.parse(`${match[1]}Z`)
  if (Number.isNaN(seconds)) return undefined
  const micros = (match[2] ?? '').padEnd(6, '0').slice(0, 6)
  return BigInt(seconds) * 1000n + BigInt(micros)
}

/**
 * @param {bigint} micros microseconds since the epoch
 * @returns {string} `YYYY-MM-DDTHH:MM:SS.ffffffZ`
 */
export function formatTimestamp(micros) {
  const seconds = new Date(Number(micros / 1_000_000n) * 1000).toISOString().slice(0, 19)
  return `${seconds}.${String(micros % 1_000_000n).padStart(6, '0')}Z`
}

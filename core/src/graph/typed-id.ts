/**
 * Identifiers of the form `prefix--xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (STIX ids, lowercase hex) as a prefix
 * number and 16 bytes, for columns that hold millions of them: a V8 string of such an id costs 64–72 bytes,
 * these 18. Only text that formats back to exactly itself is taken.
 */

const UUID_CHARS = 36
/** Offsets of the four dashes inside the UUID part. */
const DASHES = [8, 13, 18, 23]
const HEX: string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'))

function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 97 && code <= 102) return code - 87
  return -1
}

/**
 * Writes the UUID part of `text` into `out` at `at` (16 bytes) and returns the prefix (without `--`), or
 * returns null when `text` is not of that form.
 */
export function splitTypedId(text: string, out: Uint8Array, at: number): string | null {
  const start = text.length - UUID_CHARS
  // A prefix of one character or more, then `--`.
  if (start < 3 || text.charCodeAt(start - 1) !== 45 || text.charCodeAt(start - 2) !== 45) return null
  let byte = 0
  let high = -1
  for (let i = 0; i < UUID_CHARS; i++) {
    const code = text.charCodeAt(start + i)
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (code !== 45) return null
      continue
    }
    const digit = hexDigit(code)
    if (digit < 0) return null
    if (high < 0) high = digit
    else {
      out[at + byte++] = (high << 4) | digit
      high = -1
    }
  }
  return text.slice(0, start - 2)
}

/** The id back from its prefix and the 16 bytes at `at`. */
export function joinTypedId(prefix: string, bytes: Uint8Array, at: number): string {
  let uuid = ''
  let dash = 0
  for (let i = 0; i < 16; i++) {
    if (dash < DASHES.length && uuid.length === DASHES[dash]) {
      uuid += '-'
      dash++
    }
    uuid += HEX[bytes[at + i] as number]
  }
  return `${prefix}--${uuid}`
}

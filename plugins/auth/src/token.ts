import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest()

/**
 * Checks an Authorization header against `Bearer <token>` exactly (case-sensitive, untrimmed), in constant
 * time: both sides are hashed first so neither the length nor a prefix of the secret leaks through timing.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  if (header === undefined) return false
  return timingSafeEqual(digest(header), digest(`Bearer ${token}`))
}

/** Compares a presented secret with the token in constant time (both hashed first, as above). */
export function secretMatches(candidate: string, token: string): boolean {
  return timingSafeEqual(digest(candidate), digest(token))
}

/**
 * Checks `Basic base64(user:password)` against the token as the password, any user name, in constant time
 * (TAXII 2.1 section 1.6.9: servers support HTTP Basic). The scheme name is case-insensitive (RFC 7617).
 */
export function basicMatches(header: string | undefined, token: string): boolean {
  if (header === undefined) return false
  const match = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header)
  if (match === null) return false
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return false
  return secretMatches(decoded.slice(colon + 1), token)
}

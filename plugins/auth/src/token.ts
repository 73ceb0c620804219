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

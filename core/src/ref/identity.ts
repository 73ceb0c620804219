/**
 * Stable identities of a reference write (FACTS §8): the caller's idempotency key is kept only as
 * `sha256:<hex>`; the transaction id and the request fingerprint derive from it and from the request.
 */
import { canonicalize, sha256Hex as sha256 } from '../stix/canonical.js'
import type { RefWriteRequest } from './request.js'

export const KEY_HASH_PREFIX = 'sha256:'

/** The hashed key; a key that already is a hash (a request replayed by a primary) is kept as it is. */
export function hashKey(key: string): string {
  return key.startsWith(KEY_HASH_PREFIX) && /^sha256:[0-9a-f]{64}$/.test(key)
    ? key
    : `${KEY_HASH_PREFIX}${sha256(key)}`
}

export const transactionId = (keyHash: string): string =>
  `tx--ref-write-${keyHash.slice(KEY_HASH_PREFIX.length)}`

export const hashOrderingKey = (key: string): string => `${KEY_HASH_PREFIX}${sha256(key)}`

/** What makes two requests "the same" for a key: contract major, the access context and the operation. */
export function fingerprint(request: RefWriteRequest): string {
  return sha256(
    canonicalize({
      major: request.contract_version.major,
      access: request.context.access,
      operation: request.operation,
    }),
  )
}

/** Deterministic file-job identity over the immutable file version. */
export const fileJobId = (fileId: string, contentHash: string, version: number): string =>
  `file-job--${sha256(canonicalize([fileId, contentHash, version]))}`

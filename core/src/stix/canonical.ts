import { createHash, hash } from 'node:crypto'

/**
 * RFC 8785 (JSON Canonicalization Scheme). ECMAScript's own number and string serialisation are what the RFC
 * specifies, and `Array.prototype.sort` on strings compares UTF-16 code units, as the RFC's key order does,
 * so a small recursive writer is the whole algorithm (no dependency needed).
 */
export function canonicalize(value: unknown): string {
  // Fast path: rebuild objects with sorted keys and let the native JSON.stringify write them. Array-index
  // keys ("0", "10") would be reordered numerically by the engine, so objects with such keys go the slow way.
  const sorted = sortDeep(value)
  return sorted === SLOW ? slowCanonicalize(value) : JSON.stringify(sorted)
}

const SLOW = Symbol('slow')
const INDEX_KEY = /^(0|[1-9][0-9]*)$/

function sortDeep(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new TypeError('non-finite numbers have no JSON form')
    if (
      typeof value === 'bigint' ||
      value === undefined ||
      typeof value === 'function' ||
      typeof value === 'symbol'
    )
      return SLOW
    return value
  }
  if (Array.isArray(value)) {
    const out = new Array(value.length)
    for (let i = 0; i < value.length; i++) {
      const item = sortDeep(value[i])
      if (item === SLOW) return SLOW
      out[i] = item
    }
    return out
  }
  const object = value as Record<string, unknown>
  const keys = sortKeys(Object.keys(object))
  const out: Record<string, unknown> = {}
  for (const key of keys) {
    if (INDEX_KEY.test(key) || key === '__proto__') return SLOW
    const item = object[key]
    if (item === undefined) continue
    const sorted = sortDeep(item)
    if (sorted === SLOW) return SLOW
    out[key] = sorted
  }
  return out
}

/**
 * `keys.sort()` in place, by insertion for the few keys of most objects: the engine's sort copies the array
 * into a work array first, and the fingerprint of a 5,000-record bulk write sorts 10,000 small key lists
 * (a fifth of the bytes that write allocated). Same order: both compare UTF-16 code units.
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort()
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string
    let j = i - 1
    if ((keys[j] as string) <= key) continue
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string
      j--
    }
    keys[j + 1] = key
  }
  return keys
}

function slowCanonicalize(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new TypeError('non-finite numbers have no JSON form')
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol')
      throw new TypeError(`${typeof value} has no JSON form`)
    if (typeof value === 'bigint') return value.toString()
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map((item) => slowCanonicalize(item)).join(',')}]`
  const object = value as Record<string, unknown>
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${slowCanonicalize(object[key])}`).join(',')}}`
}

/** One-shot hashing (crypto.hash): several times cheaper than createHash for small inputs. */
export const sha256Hex = (text: string): string => hash('sha256', text, 'hex')

/** Namespace of the deterministic ids this product derives (a v4 uuid chosen once). */
export const SERVICE_STIX_NAMESPACE = '2f7ad3e0-5b3c-4c2e-9a61-3d1f0b8c6e47'

/**
 * RFC 4122 version-5 UUID (SHA-1 of namespace bytes + name), as STIX 2.1 recommends for deterministic ids.
 * A long name may be given in pieces (hashed as their concatenation, without building it).
 */
export function uuidV5(name: string | Iterable<string>, namespace: string = SERVICE_STIX_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex')
  let digest: Buffer
  if (typeof name === 'string')
    digest = hash('sha1', Buffer.concat([ns, Buffer.from(name, 'utf8')]), 'buffer')
  else {
    const sha1 = createHash('sha1').update(ns)
    for (const piece of name) sha1.update(piece, 'utf8')
    digest = sha1.digest()
  }
  digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x50
  digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80
  const hex = digest.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

const FNV_OFFSET = 0xcbf29ce484222325n
const FNV_PRIME = 0x100000001b3n
const MASK_64 = 0xffffffffffffffffn

/** FNV-1a 64 over the UTF-8 bytes, as 16 lowercase hex digits (ids of native nodes without a STIX id). */
export function fnv1a64Hex(text: string): string {
  let hash = FNV_OFFSET
  for (const byte of Buffer.from(text, 'utf8')) hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & MASK_64
  return hash.toString(16).padStart(16, '0')
}

import { createPublicKey, type KeyObject, verify } from 'node:crypto'
import { LicenseError } from './errors.js'
import { isObject } from './strict-json.js'

/**
 * Signed licenses (FACTS §9, label per DECISIONS.md). A PEM block `SERVICE LICENSE` holds base64 JSON
 * `{client_uuid, client_email, modules, valid_until, tags?, signature}`; the Ed25519 signature covers the
 * compact JSON of the normalised claims in the order client_uuid, client_email, modules, valid_until, tags.
 * Error messages name the faulty field, never its value or any key material.
 */

export const LICENSE_PEM_LABEL = 'SERVICE LICENSE'

export interface LicenseClaims {
  client_uuid: string
  client_email: string
  modules: string[]
  valid_until: string
  tags: string[]
}

export interface VerifiedLicense {
  claims: LicenseClaims
  validUntilMs: number
}

export interface LicenseSummary {
  source: 'signed_pem' | 'none'
  client_uuid: string | null
  client_email: string | null
  modules: string[]
  valid_until: string | null
  is_nfr: boolean
}

const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const UUID_HEX = /^[0-9a-f]{32}$/
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/

function decodeBase64(text: string, what: string): Buffer {
  if (text === '' || !STANDARD_BASE64.test(text)) throw new LicenseError(`${what} is not standard base64`)
  return Buffer.from(text, 'base64')
}

/** The JSON inside the first `SERVICE LICENSE` block; body lines are trimmed and joined. */
export function decodeLicensePem(pem: string): unknown {
  const lines = pem.split(/\r?\n/).map((line) => line.trim())
  const begin = lines.indexOf(`-----BEGIN ${LICENSE_PEM_LABEL}-----`)
  const end = lines.indexOf(`-----END ${LICENSE_PEM_LABEL}-----`)
  if (begin === -1 || end === -1 || end < begin)
    throw new LicenseError(`the license is not a '${LICENSE_PEM_LABEL}' PEM block`)
  if (lines.some((line, i) => line !== '' && (i < begin || i > end)))
    throw new LicenseError('the license PEM has text outside its block')
  const body = decodeBase64(lines.slice(begin + 1, end).join(''), 'the license body')
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    throw new LicenseError('the license body is not JSON')
  }
}

/** Lower-cased hyphenated form of a UUID written hyphenated, plain, braced or as a URN. */
function normaliseUuid(value: string): string {
  let v = value.trim().toLowerCase()
  if (v.startsWith('urn:uuid:')) v = v.slice('urn:uuid:'.length)
  else if (v.startsWith('{') && v.endsWith('}')) v = v.slice(1, -1)
  const hyphenated = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v)
  const hex = hyphenated ? v.replaceAll('-', '') : v
  if (!UUID_HEX.test(hex)) throw new LicenseError('client_uuid is not a UUID')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

function normaliseEmail(value: string): string {
  const email = value.trim().toLowerCase()
  const at = email.lastIndexOf('@')
  const local = email.slice(0, at)
  const domain = email.slice(at + 1)
  const dot = domain.indexOf('.')
  if (at <= 0 || /\s/.test(email) || dot <= 0 || domain.endsWith('.') || domain.startsWith('.'))
    throw new LicenseError('client_email is not a valid address')
  return `${local}@${domain}`
}

/** Trimmed, lower-cased, blanks dropped, sorted, without repeats. */
function normaliseWords(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new LicenseError(`${what} must be an array of strings`)
  const words = new Set((value as string[]).map((v) => v.trim().toLowerCase()).filter((v) => v !== ''))
  return [...words].sort()
}

/** Milliseconds since the epoch of an RFC 3339 date-time, or a LicenseError. */
export function parseRfc3339(value: string, what: string): number {
  const m = RFC3339.exec(value)
  const [, , month, day, hour, minute, second, , , offH, offM] = m ?? []
  const ms = Date.parse(value)
  if (
    m === null ||
    Number.isNaN(ms) ||
    Number(month) < 1 ||
    Number(month) > 12 ||
    Number(day) < 1 ||
    Number(day) > 31 ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 60 ||
    (offH !== undefined && Number(offH) > 23) ||
    (offM !== undefined && Number(offM) > 59)
  )
    throw new LicenseError(`${what} is not an RFC 3339 date-time`)
  return ms
}

/** Normalises the signed claims; `tags` is optional and becomes [] when absent. */
export function normaliseClaims(raw: Record<string, unknown>): LicenseClaims {
  for (const key of ['client_uuid', 'client_email', 'valid_until'] as const) {
    if (typeof raw[key] !== 'string') throw new LicenseError(`${key} must be a string`)
  }
  return {
    client_uuid: normaliseUuid(raw.client_uuid as string),
    client_email: normaliseEmail(raw.client_email as string),
    modules: normaliseWords(raw.modules, 'modules'),
    valid_until: (raw.valid_until as string).trim(),
    tags: raw.tags === undefined ? [] : normaliseWords(raw.tags, 'tags'),
  }
}

/** The exact bytes the signature covers. */
export const signedBytes = (claims: LicenseClaims): Buffer =>
  Buffer.from(
    JSON.stringify({
      client_uuid: claims.client_uuid,
      client_email: claims.client_email,
      modules: claims.modules,
      valid_until: claims.valid_until,
      tags: claims.tags,
    }),
    'utf8',
  )

/** An Ed25519 public key from an SPKI `PUBLIC KEY` PEM. */
export function parsePublicKey(pem: string): KeyObject {
  if (!pem.includes('-----BEGIN PUBLIC KEY-----'))
    throw new LicenseError("the license public key is not a 'PUBLIC KEY' (SPKI) PEM")
  let key: KeyObject
  try {
    key = createPublicKey({ key: pem, format: 'pem' })
  } catch {
    throw new LicenseError('the license public key cannot be read')
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new LicenseError('the license public key is not an Ed25519 key')
  return key
}

const LICENSE_FIELDS = new Set(['client_uuid', 'client_email', 'modules', 'valid_until', 'tags', 'signature'])

/** Decodes, normalises and verifies a license; it must be signed by `publicKeyPem` and not yet expired. */
export function verifyLicense(pem: string, publicKeyPem: string, now: number = Date.now()): VerifiedLicense {
  const key = parsePublicKey(publicKeyPem)
  const raw = decodeLicensePem(pem)
  if (!isObject(raw)) throw new LicenseError('the license body is not a JSON object')
  for (const field of Object.keys(raw)) {
    if (!LICENSE_FIELDS.has(field)) throw new LicenseError(`the license has an unknown field '${field}'`)
  }
  if (typeof raw.signature !== 'string') throw new LicenseError('the license signature is missing')
  const signature = decodeBase64(raw.signature, 'the license signature')
  const claims = normaliseClaims(raw)
  const validUntilMs = parseRfc3339(claims.valid_until, 'valid_until')
  if (signature.length !== 64 || !verify(null, signedBytes(claims), key, signature))
    throw new LicenseError('the license signature does not verify against the configured public key')
  if (validUntilMs <= now)
    throw new LicenseError('the license has expired (valid_until is not in the future)')
  return { claims, validUntilMs }
}

export interface LicenseSettings {
  pem: string | null
  publicKeyPem: string | null
}

/** The deployment's license: none, or one that verifies; anything else stops start-up. */
export function loadLicense(settings: LicenseSettings, now: number = Date.now()): VerifiedLicense | null {
  if (settings.pem === null) return null
  if (settings.publicKeyPem === null)
    throw new LicenseError('a license is set but no license public key is configured')
  return verifyLicense(settings.pem, settings.publicKeyPem, now)
}

export function licenseSummary(license: VerifiedLicense | null): LicenseSummary {
  if (license === null)
    return {
      source: 'none',
      client_uuid: null,
      client_email: null,
      modules: [],
      valid_until: null,
      is_nfr: false,
    }
  const { claims } = license
  return {
    source: 'signed_pem',
    client_uuid: claims.client_uuid,
    client_email: claims.client_email,
    modules: [...claims.modules],
    valid_until: claims.valid_until,
    is_nfr: claims.tags.includes('nfr'),
  }
}

/** A claim counts only while the license is still valid (a long-running server outlives its license). */
export const licenseClaims = (
  license: VerifiedLicense | null,
  module: string,
  now: number = Date.now(),
): boolean =>
  license !== null &&
  license.validUntilMs > now &&
  license.claims.modules.includes(module.trim().toLowerCase())

import { generateKeyPairSync, sign } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { LicenseError } from './errors.js'
import {
  decodeLicensePem,
  licenseClaims,
  licenseSummary,
  loadLicense,
  normaliseClaims,
  signedBytes,
  verifyLicense,
} from './license.js'
import { generateLicenseKeyPair, issueLicense } from './license-issuer.js'

const keys = generateLicenseKeyPair()
const otherKeys = generateLicenseKeyPair()
const NOW = Date.parse('2026-01-01T00:00:00Z')
const request = {
  client_uuid: '6F1C1E2A-3B4D-4E5F-8A9B-0C1D2E3F4A5B',
  client_email: '  Ops.Team@Example.COM ',
  modules: [' CTI', 'fimi', '', 'cti', 'Crisis '],
  valid_until: '2027-06-30T12:00:00Z',
  tags: ['NFR', ' trial ', 'nfr'],
}

const pemOf = (body: unknown) =>
  [
    '-----BEGIN SERVICE LICENSE-----',
    ...(Buffer.from(JSON.stringify(body))
      .toString('base64')
      .match(/.{1,64}/g) ?? []),
    '-----END SERVICE LICENSE-----',
  ].join('\n')

/** A license with arbitrary (unnormalised) signed fields, to test what the verifier does with them. */
function signRaw(fields: Record<string, unknown>, privateKeyPem = keys.privateKeyPem): string {
  const claims = normaliseClaims(fields)
  const signature = sign(null, signedBytes(claims), privateKeyPem).toString('base64')
  return pemOf({ ...fields, signature })
}

describe('verifyLicense', () => {
  it('accepts a valid license and normalises its claims', () => {
    const license = verifyLicense(issueLicense(request, keys.privateKeyPem), keys.publicKeyPem, NOW)
    expect(license.claims).toEqual({
      client_uuid: '6f1c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
      client_email: 'ops.team@example.com',
      modules: ['crisis', 'cti', 'fimi'],
      valid_until: '2027-06-30T12:00:00Z',
      tags: ['nfr', 'trial'],
    })
    expect(licenseSummary(license)).toEqual({
      source: 'signed_pem',
      client_uuid: '6f1c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
      client_email: 'ops.team@example.com',
      modules: ['crisis', 'cti', 'fimi'],
      valid_until: '2027-06-30T12:00:00Z',
      is_nfr: true,
    })
  })

  it('verifies a signature made over the normalised values of unnormalised fields', () => {
    const pem = signRaw({ ...request })
    expect(verifyLicense(pem, keys.publicKeyPem, NOW).claims.modules).toEqual(['crisis', 'cti', 'fimi'])
  })

  it('treats absent tags as [] and is_nfr false', () => {
    const { tags: _t, ...noTags } = request
    const license = verifyLicense(issueLicense(noTags, keys.privateKeyPem), keys.publicKeyPem, NOW)
    expect(license.claims.tags).toEqual([])
    expect(licenseSummary(license).is_nfr).toBe(false)
  })

  it('accepts PEM body lines with surrounding blanks and CRLF endings', () => {
    const pem = issueLicense(request, keys.privateKeyPem)
      .split('\n')
      .map((l) => `  ${l}  `)
      .join('\r\n')
    expect(verifyLicense(`\n${pem}\n`, keys.publicKeyPem, NOW).claims.client_email).toBe(
      'ops.team@example.com',
    )
  })

  it('refuses an expired license, and one expiring exactly now', () => {
    const pem = issueLicense({ ...request, valid_until: '2025-12-31T23:59:59Z' }, keys.privateKeyPem)
    expect(() => verifyLicense(pem, keys.publicKeyPem, NOW)).toThrow(/expired/)
    const edge = issueLicense({ ...request, valid_until: '2026-01-01T00:00:00Z' }, keys.privateKeyPem)
    expect(() => verifyLicense(edge, keys.publicKeyPem, NOW)).toThrow(/expired/)
  })

  it('refuses a license signed by another key', () => {
    const pem = issueLicense(request, otherKeys.privateKeyPem)
    expect(() => verifyLicense(pem, keys.publicKeyPem, NOW)).toThrow(/signature does not verify/)
  })

  it('refuses a tampered claim (module added after signing)', () => {
    const good = decodeLicensePem(issueLicense(request, keys.privateKeyPem)) as Record<string, unknown>
    const pem = pemOf({ ...good, modules: ['cti', 'fimi', 'crisis', 'medical'] })
    expect(() => verifyLicense(pem, keys.publicKeyPem, NOW)).toThrow(/signature does not verify/)
  })

  it('refuses a wrong signature (bad length, not base64, missing)', () => {
    const good = decodeLicensePem(issueLicense(request, keys.privateKeyPem)) as Record<string, unknown>
    expect(() => verifyLicense(pemOf({ ...good, signature: 'AAAA' }), keys.publicKeyPem, NOW)).toThrow(
      /signature does not verify/,
    )
    expect(() => verifyLicense(pemOf({ ...good, signature: 'not base64!' }), keys.publicKeyPem, NOW)).toThrow(
      /signature is not standard base64/,
    )
    const { signature: _s, ...unsigned } = good
    expect(() => verifyLicense(pemOf(unsigned), keys.publicKeyPem, NOW)).toThrow(/signature is missing/)
  })

  it.each([
    ['no PEM block', 'hello', /not a 'SERVICE LICENSE' PEM block/],
    [
      'the reference label',
      '-----BEGIN CORROBORE LICENSE-----\neyJ9\n-----END CORROBORE LICENSE-----',
      /PEM block/,
    ],
    ['an END before BEGIN', '-----END SERVICE LICENSE-----\n-----BEGIN SERVICE LICENSE-----', /PEM block/],
    [
      'a body that is not base64',
      '-----BEGIN SERVICE LICENSE-----\n***\n-----END SERVICE LICENSE-----',
      /base64/,
    ],
    ['an empty body', '-----BEGIN SERVICE LICENSE-----\n-----END SERVICE LICENSE-----', /base64/],
    [
      'base64 of non-JSON',
      `-----BEGIN SERVICE LICENSE-----\n${Buffer.from('hi!').toString('base64')}\n-----END SERVICE LICENSE-----`,
      /not JSON/,
    ],
    ['text outside the block', `junk\n${pemOf({})}`, /outside its block/],
  ])('refuses a malformed PEM: %s', (_what, pem, message) => {
    expect(() => verifyLicense(pem, keys.publicKeyPem, NOW)).toThrow(message)
  })

  it.each([
    ['a non-UUID', { client_uuid: 'abc' }, /client_uuid is not a UUID/],
    ['an email without @', { client_email: 'ops.example.com' }, /client_email/],
    ['an email with an empty local part', { client_email: '@example.com' }, /client_email/],
    ['an email domain without a dot', { client_email: 'ops@localhost' }, /client_email/],
    ['an email domain ending in a dot', { client_email: 'ops@example.' }, /client_email/],
    ['an email domain starting with a dot', { client_email: 'ops@.example' }, /client_email/],
    ['modules not a list', { modules: 'cti' }, /modules must be an array/],
    ['a non-string tag', { tags: [1] }, /tags must be an array/],
    ['a date that is not RFC 3339', { valid_until: '30/06/2027' }, /valid_until is not an RFC 3339/],
    ['a date without a zone', { valid_until: '2027-06-30T12:00:00' }, /valid_until is not an RFC 3339/],
    ['month 13', { valid_until: '2027-13-01T00:00:00Z' }, /valid_until is not an RFC 3339/],
  ])('refuses %s', (_what, change, message) => {
    const fields: Record<string, unknown> = { ...request, ...change, signature: 'A'.repeat(86) + '==' }
    expect(() => verifyLicense(pemOf(fields), keys.publicKeyPem, NOW)).toThrow(message)
  })

  it('refuses an unknown field in the license', () => {
    const good = decodeLicensePem(issueLicense(request, keys.privateKeyPem)) as Record<string, unknown>
    expect(() => verifyLicense(pemOf({ ...good, seats: 5 }), keys.publicKeyPem, NOW)).toThrow(
      /unknown field 'seats'/,
    )
  })

  it('accepts UUIDs written plain, braced or as a URN', () => {
    for (const client_uuid of [
      '6f1c1e2a3b4d4e5f8a9b0c1d2e3f4a5b',
      '{6f1c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b}',
      'urn:uuid:6f1c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
    ]) {
      const pem = signRaw({ ...request, client_uuid })
      expect(verifyLicense(pem, keys.publicKeyPem, NOW).claims.client_uuid).toBe(
        '6f1c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
      )
    }
  })

  it('refuses a public key that is not an Ed25519 SPKI PEM', () => {
    const pem = issueLicense(request, keys.privateKeyPem)
    expect(() => verifyLicense(pem, 'garbage', NOW)).toThrow(/'PUBLIC KEY' \(SPKI\) PEM/)
    expect(() => verifyLicense(pem, keys.privateKeyPem, NOW)).toThrow(/'PUBLIC KEY' \(SPKI\) PEM/)
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    })
    expect(() => verifyLicense(pem, rsa.toString(), NOW)).toThrow(/not an Ed25519 key/)
    expect(() =>
      verifyLicense(pem, '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----', NOW),
    ).toThrow(/cannot be read/)
  })

  it('never puts license or key material in its messages', () => {
    const pem = issueLicense(request, otherKeys.privateKeyPem)
    const secretBits = [
      pem.split('\n')[1] ?? '',
      'ops.team@example.com',
      '6f1c1e2a',
      keys.publicKeyPem.split('\n')[1] ?? '',
    ]
    const messages: string[] = []
    for (const attempt of [
      () => verifyLicense(pem, keys.publicKeyPem, NOW),
      () =>
        verifyLicense(
          pemOf({ ...request, client_email: 'bad-address', signature: 'AAAA' }),
          keys.publicKeyPem,
          NOW,
        ),
      () => verifyLicense(pem, keys.publicKeyPem.replace('PUBLIC', 'PRIVATE'), NOW),
    ]) {
      try {
        attempt()
      } catch (error) {
        expect(error).toBeInstanceOf(LicenseError)
        messages.push((error as Error).message)
      }
    }
    expect(messages).toHaveLength(3)
    for (const message of messages) for (const bit of secretBits) expect(message).not.toContain(bit)
    expect(messages.join(' ')).not.toContain('bad-address')
  })
})

describe('loadLicense and claims', () => {
  it('is none without a PEM', () => {
    expect(loadLicense({ pem: null, publicKeyPem: null })).toBeNull()
    expect(licenseSummary(null)).toEqual({
      source: 'none',
      client_uuid: null,
      client_email: null,
      modules: [],
      valid_until: null,
      is_nfr: false,
    })
  })

  it('requires the public key once a license is set', () => {
    expect(() => loadLicense({ pem: issueLicense(request, keys.privateKeyPem), publicKeyPem: null })).toThrow(
      /no license public key/,
    )
  })

  it('claims a module only while valid', () => {
    const license = loadLicense(
      { pem: issueLicense(request, keys.privateKeyPem), publicKeyPem: keys.publicKeyPem },
      NOW,
    )
    expect(licenseClaims(license, 'cti', NOW)).toBe(true)
    expect(licenseClaims(license, ' CTI ', NOW)).toBe(true)
    expect(licenseClaims(license, 'medical', NOW)).toBe(false)
    expect(licenseClaims(license, 'cti', Date.parse('2027-06-30T12:00:00Z'))).toBe(false)
    expect(licenseClaims(null, 'cti', NOW)).toBe(false)
  })
})

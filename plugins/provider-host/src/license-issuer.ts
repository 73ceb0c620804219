import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto'
import { LicenseError } from './errors.js'
import { LICENSE_PEM_LABEL, normaliseClaims, parseRfc3339, signedBytes } from './license.js'

/**
 * Issues licenses for tests, documentation and development (`service-http-server dev-license`). Production
 * licenses are issued elsewhere with a key that never leaves the vendor; the server itself only verifies.
 */

export interface LicenseRequest {
  client_uuid: string
  client_email: string
  modules: readonly string[]
  valid_until: string
  tags?: readonly string[]
}

export interface TestKeyPair {
  privateKeyPem: string
  publicKeyPem: string
}

export function generateLicenseKeyPair(): TestKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  }
}

const wrap = (text: string, width = 64): string[] => text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []

/** Signs the normalised claims and wraps them in a `SERVICE LICENSE` PEM block (expired dates allowed). */
export function issueLicense(request: LicenseRequest, privateKey: KeyObject | string): string {
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey
  if (key.asymmetricKeyType !== 'ed25519') throw new LicenseError('the signing key is not an Ed25519 key')
  const claims = normaliseClaims({
    ...request,
    modules: [...request.modules],
    ...(request.tags === undefined ? {} : { tags: [...request.tags] }),
  })
  parseRfc3339(claims.valid_until, 'valid_until')
  const signature = sign(null, signedBytes(claims), key).toString('base64')
  const body = Buffer.from(JSON.stringify({ ...claims, signature }), 'utf8').toString('base64')
  return [
    `-----BEGIN ${LICENSE_PEM_LABEL}-----`,
    ...wrap(body),
    `-----END ${LICENSE_PEM_LABEL}-----`,
    '',
  ].join('\n')
}

import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { generateLicenseKeyPair, issueLicense } from '@service/plugin-provider-host'

/**
 * `service-http-server dev-license`: a license for local trials of the enterprise packs. The signing key
 * is generated on this machine, once, and kept beside the license in the runtime directory (git-ignored);
 * no deployment trusts it unless it is configured with this public key, so it never unlocks production.
 */

export const DEFAULT_DEV_LICENSE_DIR = join('.service-runtime', 'dev-license')
export const DEV_LICENSE_MODULES = ['cti', 'fimi', 'crisis'] as const

export interface DevLicenseFiles {
  dir: string
  license: string
  publicKey: string
  signingKey: string
}

export const devLicenseFiles = (dir: string): DevLicenseFiles => ({
  dir,
  license: join(dir, 'license.pem'),
  publicKey: join(dir, 'public-key.pem'),
  signingKey: join(dir, 'signing-key.pem'),
})

/** The directory the command writes to: --dir, else SERVICE_DEV_LICENSE_DIR, else .service-runtime/dev-license. */
export const devLicenseDir = (explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string =>
  resolve(explicit ?? env.SERVICE_DEV_LICENSE_DIR ?? DEFAULT_DEV_LICENSE_DIR)

const writePrivate = (path: string, text: string, mode: number) => {
  const temporary = `${path}.tmp-${process.pid}`
  writeFileSync(temporary, text, { mode })
  chmodSync(temporary, mode)
  renameSync(temporary, path)
}

/** Issues (or re-issues) the development license; the key pair is made on first use and then kept. */
export function issueDevLicense(options: {
  dir: string
  modules?: readonly string[]
  days?: number
}): DevLicenseFiles {
  const files = devLicenseFiles(options.dir)
  mkdirSync(files.dir, { recursive: true, mode: 0o700 })
  let privateKeyPem: string
  if (existsSync(files.signingKey)) privateKeyPem = readFileSync(files.signingKey, 'utf8')
  else {
    privateKeyPem = generateLicenseKeyPair().privateKeyPem
    writePrivate(files.signingKey, privateKeyPem, 0o600)
  }
  const publicKeyPem = createPublicKey(createPrivateKey(privateKeyPem))
    .export({ type: 'spki', format: 'pem' })
    .toString()
  writePrivate(files.publicKey, publicKeyPem, 0o644)
  const validUntil = new Date(Date.now() + (options.days ?? 30) * 86_400_000)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
  const license = issueLicense(
    {
      client_uuid: randomUUID(),
      client_email: 'developer@localhost.test',
      modules: options.modules ?? DEV_LICENSE_MODULES,
      valid_until: validUntil,
      tags: ['development'],
    },
    privateKeyPem,
  )
  writePrivate(files.license, license, 0o600)
  return files
}

/** What the command prints: where the files are and the two settings that use them. */
export function devLicenseReport(files: DevLicenseFiles, modules: readonly string[]): string {
  return [
    `development license for ${modules.join(', ')} written to ${files.license}`,
    `signed by a key generated on this machine (${files.signingKey}); for development only:`,
    'a deployment trusts it only when configured with its public key, as below.',
    '',
    `SERVICE_HTTP_LICENSE_PEM_FILE=${files.license}`,
    `SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM_FILE=${files.publicKey}`,
    '',
    '`npm run quickstart` picks these files up by itself; restart it to use them.',
    '',
  ].join('\n')
}

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadLicense } from '@service/plugin-provider-host'
import { afterEach, describe, expect, it } from 'vitest'
import { devLicenseDir, devLicenseReport, issueDevLicense } from './dev-license.js'

const dirs: string[] = []
const fresh = () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'dev-license-')), 'license')
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(join(dir, '..'), { recursive: true, force: true })
})

describe('service-http-server dev-license', () => {
  it('issues a license for the enterprise modules that verifies only with the key made here', () => {
    const files = issueDevLicense({ dir: fresh() })
    const pem = readFileSync(files.license, 'utf8')
    const publicKeyPem = readFileSync(files.publicKey, 'utf8')
    const license = loadLicense({ pem, publicKeyPem }, Date.now())
    expect(license?.claims.modules).toEqual(['crisis', 'cti', 'fimi'])
    expect(license?.claims.tags).toEqual(['development'])
    // Another machine's key does not verify it.
    const other = issueDevLicense({ dir: fresh() })
    expect(() =>
      loadLicense({ pem, publicKeyPem: readFileSync(other.publicKey, 'utf8') }, Date.now()),
    ).toThrow()
    expect(statSync(files.signingKey).mode & 0o777).toBe(0o600)
    expect(statSync(files.license).mode & 0o777).toBe(0o600)
  })

  it('keeps its signing key across runs and prints the settings, never the key', () => {
    const dir = fresh()
    const first = issueDevLicense({ dir, modules: ['cti'] })
    const key = readFileSync(first.signingKey, 'utf8')
    const second = issueDevLicense({ dir, modules: ['fimi'] })
    expect(readFileSync(second.signingKey, 'utf8')).toBe(key)
    const report = devLicenseReport(second, ['fimi'])
    expect(report).toContain(`SERVICE_HTTP_LICENSE_PEM_FILE=${second.license}`)
    expect(report).toContain(`SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM_FILE=${second.publicKey}`)
    expect(report).not.toContain('PRIVATE KEY')
  })

  it('writes to --dir, else SERVICE_DEV_LICENSE_DIR, else .service-runtime/dev-license', () => {
    expect(devLicenseDir('/a')).toBe('/a')
    expect(devLicenseDir(undefined, { SERVICE_DEV_LICENSE_DIR: '/b' })).toBe('/b')
    expect(devLicenseDir(undefined, {})).toBe(join(process.cwd(), '.service-runtime', 'dev-license'))
  })
})

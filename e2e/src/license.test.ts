/**
 * Signed licenses end to end: the summary on both license routes, and start-up refusals for a license that
 * is expired, tampered, signed by another key or malformed (non-zero exit, a clear message, no key material).
 * Needs the host to pass SERVICE_HTTP_LICENSE_PEM[_FILE] / SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM[_FILE] to the
 * provider-host plugin.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type ErrorBody, repoRoot, startExpectingFailure, startServer } from './harness.js'

const issuer = join(repoRoot, 'plugins', 'provider-host', 'scripts', 'issue-test-license.mjs')

interface Issued {
  license_pem: string
  public_key_pem: string
  private_key_pem?: string
}

/** Signs a license with the test issuer (a throw-away key unless one is given). */
function issue(args: string[], privateKeyFile?: string): Issued {
  const extra = privateKeyFile === undefined ? [] : ['--private-key-file', privateKeyFile]
  return JSON.parse(
    execFileSync(process.execPath, [issuer, '--json', ...args, ...extra], { encoding: 'utf8' }),
  )
}

interface LicenseSummary {
  source: string
  client_uuid: string | null
  client_email: string | null
  modules: string[]
  valid_until: string | null
  is_nfr: boolean
}

const CLIENT_UUID = '0b7e2c1a-5d4f-4a3b-9c8d-7e6f5a4b3c2d'
let work: string
let signed: Issued
let keyFile: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'e2e-license-'))
  signed = issue([
    '--modules',
    ' CTI,fimi,,cti',
    '--email',
    'Ops@Example.COM',
    '--uuid',
    CLIENT_UUID.toUpperCase(),
    '--valid-until',
    '2099-12-31T23:59:59Z',
    '--tags',
    'nfr',
  ])
  keyFile = join(work, 'signing-key.pem')
  await writeFile(keyFile, signed.private_key_pem ?? '')
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

const licenseEnv = (license: string, publicKey: string) => ({
  SERVICE_HTTP_LICENSE_PEM: license,
  SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM: publicKey,
})

describe('license status', () => {
  it('reports none without a license', async () => {
    const server = await startServer({ env: { SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN } })
    try {
      const response = await server.request<{ ok: true; result: LicenseSummary }>('/v1/license/status')
      expect(response.status).toBe(200)
      expect(response.json).toEqual({
        ok: true,
        result: {
          source: 'none',
          client_uuid: null,
          client_email: null,
          modules: [],
          valid_until: null,
          is_nfr: false,
        },
      })
    } finally {
      await server.stop()
    }
  })

  it('reports a valid signed license, normalised, on the bearer and admin routes', async () => {
    const server = await startServer({
      env: {
        ...licenseEnv(signed.license_pem, signed.public_key_pem),
        SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
      },
    })
    try {
      const expected = {
        ok: true,
        result: {
          source: 'signed_pem',
          client_uuid: CLIENT_UUID,
          client_email: 'ops@example.com',
          modules: ['cti', 'fimi'],
          valid_until: '2099-12-31T23:59:59Z',
          is_nfr: true,
        },
      }
      const bearer = await server.request('/v1/license/status')
      expect(bearer.status).toBe(200)
      expect(bearer.json).toEqual(expected)
      const admin = await server.request('/v1/admin/license/status', { token: ADMIN_TOKEN })
      expect(admin.status).toBe(200)
      expect(admin.json).toEqual(expected)
      const bearerOnAdmin = await server.request<ErrorBody>('/v1/admin/license/status')
      expect(bearerOnAdmin.status).toBe(401)
      // Nothing of the license is written to the logs.
      const body = signed.license_pem.split('\n')[1] ?? ''
      expect(server.stdout() + server.stderr()).not.toContain(body)
    } finally {
      await server.stop()
    }
  })

  it('reads the license and key from files', async () => {
    const licenseFile = join(work, 'license.pem')
    const publicKeyFile = join(work, 'public.pem')
    await writeFile(licenseFile, signed.license_pem)
    await writeFile(publicKeyFile, signed.public_key_pem)
    const server = await startServer({
      env: {
        SERVICE_HTTP_LICENSE_PEM_FILE: licenseFile,
        SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM_FILE: publicKeyFile,
      },
    })
    try {
      const response = await server.request<{ result: LicenseSummary }>('/v1/license/status')
      expect(response.json.result.modules).toEqual(['cti', 'fimi'])
    } finally {
      await server.stop()
    }
  })
})

describe('license start-up refusals', () => {
  const refuses = async (env: Record<string, string>, message: RegExp) => {
    const { code, stderr } = await startExpectingFailure(env)
    expect(code).not.toBe(0)
    expect(code).not.toBeNull()
    expect(stderr).toMatch(message)
    // The refusal never echoes license or key material.
    for (const pem of Object.values(env)) {
      for (const line of pem.split('\n').filter((l) => l.length > 40)) expect(stderr).not.toContain(line)
    }
    return stderr
  }

  it('refuses an expired license', async () => {
    const expired = issue(['--modules', 'cti', '--valid-until', '2020-01-01T00:00:00Z'], keyFile)
    await refuses(licenseEnv(expired.license_pem, signed.public_key_pem), /license has expired/)
  })

  it('refuses a license whose claims were changed after signing', async () => {
    const lines = signed.license_pem.trim().split('\n')
    const body = JSON.parse(Buffer.from(lines.slice(1, -1).join(''), 'base64').toString('utf8'))
    body.modules = ['cti', 'crisis', 'fimi']
    const tampered = [lines[0], Buffer.from(JSON.stringify(body)).toString('base64'), lines.at(-1)].join('\n')
    await refuses(licenseEnv(tampered, signed.public_key_pem), /signature does not verify/)
  })

  it('refuses a license signed by another key', async () => {
    const other = issue(['--modules', 'cti', '--days', '30'])
    await refuses(licenseEnv(other.license_pem, signed.public_key_pem), /signature does not verify/)
  })

  it('refuses a public key that is not an Ed25519 SPKI key', async () => {
    await refuses(licenseEnv(signed.license_pem, signed.private_key_pem ?? ''), /PUBLIC KEY/)
  })

  it('refuses a malformed license PEM', async () => {
    const wrongLabel = signed.license_pem.replaceAll('SERVICE LICENSE', 'CORROBORE LICENSE')
    await refuses(licenseEnv(wrongLabel, signed.public_key_pem), /SERVICE LICENSE/)
  })

  it('refuses a license without its public key', async () => {
    await refuses({ SERVICE_HTTP_LICENSE_PEM: signed.license_pem }, /PUBLIC_KEY_PEM/)
  })

  it('refuses licensed modules set without a signed license', async () => {
    await refuses({ SERVICE_HTTP_LICENSED_MODULES: 'cti' }, /SERVICE_HTTP_LICENSED_MODULES/)
  })
})

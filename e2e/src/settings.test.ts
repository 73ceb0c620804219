import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startExpectingFailure, startServer } from './harness.js'

const CONFIG_EXIT = 2
const SECRET = 'top-secret-token-value-42'

describe('settings are validated at start', () => {
  it.each([
    ['missing token', { SERVICE_HTTP_AUTH_TOKEN: undefined }, 'SERVICE_HTTP_AUTH_TOKEN'],
    ['blank token', { SERVICE_HTTP_AUTH_TOKEN: '   ' }, 'SERVICE_HTTP_AUTH_TOKEN'],
    [
      'token and token file both set',
      { SERVICE_HTTP_AUTH_TOKEN_FILE: '/etc/hostname' },
      'SERVICE_HTTP_AUTH_TOKEN_FILE',
    ],
    [
      'unreadable token file',
      { SERVICE_HTTP_AUTH_TOKEN: undefined, SERVICE_HTTP_AUTH_TOKEN_FILE: '/nonexistent/token' },
      'SERVICE_HTTP_AUTH_TOKEN_FILE',
    ],
    ['port not a number', { SERVICE_HTTP_PORT: 'http' }, 'SERVICE_HTTP_PORT'],
    ['port above range', { SERVICE_HTTP_PORT: '65536' }, 'SERVICE_HTTP_PORT'],
    ['port below range', { SERVICE_HTTP_PORT: '-1' }, 'SERVICE_HTTP_PORT'],
    [
      'provider dir without manifest',
      { SERVICE_DOMAIN_PROVIDER_DIR: '/tmp' },
      'SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE',
    ],
    [
      'provider manifest without dir',
      { SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE: '/tmp/m.json' },
      'SERVICE_DOMAIN_PROVIDER_DIR',
    ],
    ['non-loopback bind without TLS', { SERVICE_HTTP_HOST: '0.0.0.0' }, 'SERVICE_HTTP_HOST'],
    [
      'local-insecure on a non-loopback bind',
      { SERVICE_HTTP_AUTH_MODE: 'local-insecure', SERVICE_HTTP_HOST: '0.0.0.0' },
      'SERVICE_HTTP_AUTH_MODE',
    ],
    ['persistent storage without a directory', { SERVICE_STORAGE_MODE: 'persistent' }, 'SERVICE_STORAGE_DIR'],
    ['unknown storage mode', { SERVICE_STORAGE_MODE: 'cloud' }, 'SERVICE_STORAGE_MODE'],
    ['bad boolean', { SERVICE_STORAGE_REQUIRE_FSYNC: 'maybe' }, 'SERVICE_STORAGE_REQUIRE_FSYNC'],
    ['zero hot-node bound', { SERVICE_STORAGE_MAX_HOT_NODES: '0' }, 'SERVICE_STORAGE_MAX_HOT_NODES'],
    ['zero request timeout', { SERVICE_HTTP_REQUEST_TIMEOUT_MS: '0' }, 'SERVICE_HTTP_REQUEST_TIMEOUT_MS'],
    [
      'licensed modules without a license',
      { SERVICE_HTTP_LICENSED_MODULES: 'cti' },
      'SERVICE_HTTP_LICENSED_MODULES',
    ],
    [
      'license without a public key',
      { SERVICE_HTTP_LICENSE_PEM: 'x' },
      'SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM',
    ],
    ['unknown memory permission', { SERVICE_MEMORY_PERMISSIONS: 'read,fly' }, 'SERVICE_MEMORY_PERMISSIONS'],
    ['TLS enabled without files', { SERVICE_TLS_ENABLED: 'true' }, 'SERVICE_TLS_CERTIFICATE_FILE'],
  ] as const)('%s exits with the config code naming the variable', async (_name, env, variable) => {
    const result = await startExpectingFailure(env)
    expect(result.code).toBe(CONFIG_EXIT)
    expect(result.stderr).toContain(variable)
  })

  it('never echoes a secret in a settings error', async () => {
    const result = await startExpectingFailure({
      SERVICE_HTTP_AUTH_TOKEN: SECRET,
      SERVICE_HTTP_ADMIN_AUTH_TOKEN: SECRET,
      SERVICE_HTTP_PORT: 'nope',
    })
    expect(result.code).toBe(CONFIG_EXIT)
    expect(result.stderr).toContain('SERVICE_HTTP_ADMIN_AUTH_TOKEN')
    expect(result.stderr).toContain('SERVICE_HTTP_PORT')
    expect(result.stderr + result.stdout).not.toContain(SECRET)
  })

  it('reports every problem at once', async () => {
    const result = await startExpectingFailure({ SERVICE_HTTP_PORT: 'x', SERVICE_STORAGE_MODE: 'y' })
    expect(result.stderr).toContain('SERVICE_HTTP_PORT')
    expect(result.stderr).toContain('SERVICE_STORAGE_MODE')
  })

  it('accepts the token from a file (trimmed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-token-'))
    const file = join(dir, 'token')
    writeFileSync(file, `  ${SECRET}\n`)
    const server = await startServer({
      env: { SERVICE_HTTP_AUTH_TOKEN: undefined, SERVICE_HTTP_AUTH_TOKEN_FILE: file },
    })
    try {
      const res = await server.request('/v1/license/status', { token: SECRET })
      expect(res.status).not.toBe(401)
      expect(server.stdout()).not.toContain(SECRET)
    } finally {
      await server.stop()
    }
  })

  it('refuses to start when the port is taken', async () => {
    const first = await startServer()
    try {
      const result = await startExpectingFailure({ SERVICE_HTTP_PORT: String(first.port) })
      expect(result.code).toBe(3)
      expect(result.stderr).toContain(`127.0.0.1:${first.port}`)
    } finally {
      await first.stop()
    }
  })
})

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generate } from 'selfsigned'
import { request } from 'undici'
import { describe, expect, it } from 'vitest'
import { startExpectingFailure, startServer } from './harness.js'

async function selfSignedFiles() {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
  })
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'))
  const cert = join(dir, 'cert.pem')
  const key = join(dir, 'key.pem')
  writeFileSync(cert, pems.cert)
  writeFileSync(key, pems.private)
  return { cert, key }
}

describe('TLS', () => {
  it('serves https when a certificate and key are configured, and not plain http', async () => {
    const { cert, key } = await selfSignedFiles()
    const server = await startServer({
      https: true,
      env: { SERVICE_TLS_CERTIFICATE_FILE: cert, SERVICE_TLS_PRIVATE_KEY_FILE: key },
    })
    try {
      const res = await server.request<{ status: string }>('/health', { token: null })
      expect(res.status).toBe(200)
      expect(res.json.status).toBe('ok')
      expect(server.stdout()).toContain(`"url":"https://127.0.0.1:${server.port}"`)
      await expect(
        request(`http://127.0.0.1:${server.port}/health`, { headersTimeout: 2000, bodyTimeout: 2000 }).then(
          (r) => r.body.text(),
        ),
      ).rejects.toThrow()
    } finally {
      await server.stop()
    }
  })

  it("accepts the spec's *_SOURCE names", async () => {
    const { cert, key } = await selfSignedFiles()
    const server = await startServer({
      https: true,
      env: { SERVICE_TLS_CERTIFICATE_SOURCE: cert, SERVICE_TLS_PRIVATE_KEY_SOURCE: key },
    })
    try {
      expect((await server.request('/health/ready', { token: null })).status).toBe(200)
    } finally {
      await server.stop()
    }
  })

  it('refuses a certificate without a key, and an unreadable certificate', async () => {
    const { cert } = await selfSignedFiles()
    const missingKey = await startExpectingFailure({ SERVICE_TLS_CERTIFICATE_FILE: cert })
    expect(missingKey.code).toBe(2)
    expect(missingKey.stderr).toContain('SERVICE_TLS_PRIVATE_KEY_FILE')
    const unreadable = await startExpectingFailure({
      SERVICE_TLS_CERTIFICATE_FILE: '/nonexistent/cert.pem',
      SERVICE_TLS_PRIVATE_KEY_FILE: '/nonexistent/key.pem',
    })
    expect(unreadable.code).toBe(2)
    expect(unreadable.stderr).toContain('SERVICE_TLS_CERTIFICATE_FILE')
  })
})

describe('graceful shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s drains, closes the engine and exits 0', async (signal) => {
    const server = await startServer()
    const code = await server.stop(signal)
    expect(code).toBe(0)
    const out = server.stdout()
    expect(out).toContain('"event":"draining"')
    expect(out).toContain(`"signal":"${signal}"`)
    expect(out).toContain('"event":"stopped"')
  })
})

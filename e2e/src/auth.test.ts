import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type ErrorBody, type RunningServer, startServer, TOKEN } from './harness.js'
import { concretePath, type RegisteredRoute, registeredRoutesFromCli } from './routes.js'

// The matrix is generated from the server's own route table, so every route added later is covered.
const routes: RegisteredRoute[] = await registeredRoutesFromCli()
const byAccess = (access: RegisteredRoute['access']) => routes.filter((r) => r.access === access)

const call = (
  server: RunningServer,
  route: RegisteredRoute,
  token: string | null,
  headers: Record<string, string> = {},
) =>
  server.request<ErrorBody>(concretePath(route.url), {
    method: route.method,
    token,
    headers,
    ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }),
  })

describe('auth matrix (admin token configured)', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ env: { SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN } })
  })
  afterAll(async () => {
    await server.stop()
  })

  it('has routes in every class', () => {
    expect(byAccess('operational').length).toBeGreaterThanOrEqual(5)
  })

  it.each(byAccess('bearer').map((r) => [`${r.method} ${r.url}`, r] as const))(
    '%s requires the bearer token',
    async (_n, route) => {
      const missing = await call(server, route, null)
      expect(missing.status).toBe(401)
      expect(missing.json.error.code).toBe('AUTH_REQUIRED')
      const wrong = await call(server, route, `${TOKEN}x`)
      expect(wrong.status).toBe(401)
      expect(wrong.json.error.code).toBe('AUTH_INVALID')
      const wrongScheme = await call(server, route, null, { authorization: `bearer ${TOKEN}` })
      expect(wrongScheme.json.error.code).toBe('AUTH_INVALID')
      const admin = await call(server, route, ADMIN_TOKEN)
      expect(admin.json.error.code).toBe('AUTH_INVALID')
      const right = await call(server, route, TOKEN)
      expect(right.status).not.toBe(401)
    },
  )

  it.each(byAccess('admin').map((r) => [`${r.method} ${r.url}`, r] as const))(
    '%s takes only the admin token',
    async (_n, route) => {
      const missing = await call(server, route, null)
      expect(missing.status).toBe(401)
      expect(missing.json.error.code).toBe('AUTH_REQUIRED')
      const bearer = await call(server, route, TOKEN)
      expect(bearer.status).toBe(401)
      expect(bearer.json.error.code).toBe('AUTH_INVALID')
      const right = await call(server, route, ADMIN_TOKEN)
      expect([401, 403]).not.toContain(right.status)
    },
  )

  it.each(byAccess('operational').map((r) => [`${r.method} ${r.url}`, r] as const))(
    '%s is public',
    async (_n, route) => {
      const res = await call(server, route, null)
      expect([200, 503]).toContain(res.status)
    },
  )

  it('never echoes a token in an error message or the logs', async () => {
    const secret = 'Bearer do-not-echo-this-secret-value'
    await server.request('/v1/license/status', { token: null, headers: { authorization: secret } })
    expect(server.stdout()).not.toContain('do-not-echo-this-secret-value')
    expect(server.stdout()).not.toContain(TOKEN)
    expect(server.stdout()).not.toContain(ADMIN_TOKEN)
    expect(server.stderr()).not.toContain(TOKEN)
  })
})

describe.skipIf(byAccess('admin').length === 0)('auth matrix (admin token not configured)', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(async () => {
    await server.stop()
  })

  it.each(byAccess('admin').map((r) => [`${r.method} ${r.url}`, r] as const))(
    '%s answers 403 ADMIN_AUTH_NOT_CONFIGURED',
    async (_n, route) => {
      for (const token of [null, TOKEN, 'anything']) {
        const res = await call(server, route, token)
        expect(res.status).toBe(403)
        expect(res.json.error.code).toBe('ADMIN_AUTH_NOT_CONFIGURED')
      }
    },
  )
})

describe('operational endpoint policy "authenticated"', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({
      env: { SERVICE_OPERATIONAL_ENDPOINT_POLICY: 'authenticated' },
      waitReady: false,
    })
    for (let i = 0; i < 200; i++) {
      const res = await server.request('/health/ready').catch(() => null)
      if (res?.status === 200) break
      await new Promise((r) => setTimeout(r, 50))
    }
  })
  afterAll(async () => {
    await server.stop()
  })

  it('puts the operational routes behind the bearer token', async () => {
    for (const path of ['/health', '/health/live', '/version', '/metrics']) {
      const anonymous = await server.request<ErrorBody>(path, { token: null })
      expect(anonymous.status, path).toBe(401)
      expect(anonymous.json.error.code).toBe('AUTH_REQUIRED')
      const authed = await server.request(path)
      expect(authed.status, path).toBe(200)
    }
  })
})

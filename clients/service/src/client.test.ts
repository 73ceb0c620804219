import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script, no declarations
import { GENERATED_FILE, generatedTypes } from '../scripts/render.mjs'
import { createServiceClient, ServiceClientError, unwrap } from './client.js'

describe('@service/client', () => {
  it('is generated from the document the server serves now (run `pnpm --filter @service/client generate`)', async () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(await generatedTypes())
  }, 60_000)

  it('sends the bearer token and turns the error envelope into a ServiceClientError', async () => {
    const seen: Request[] = []
    const client = createServiceClient({
      baseUrl: 'http://service.test/',
      token: 'secret-token',
      fetch: async (request) => {
        seen.push(request)
        return Response.json(
          { ok: false, error: { code: 'AUTH_INVALID', message: 'invalid bearer token' } },
          { status: 401 },
        )
      },
    })
    const failure = await unwrap(client.POST('/v1/cypher/read', { body: { query: 'RETURN 1' } })).catch(
      (e) => e,
    )
    expect(failure).toBeInstanceOf(ServiceClientError)
    expect(failure).toMatchObject({ code: 'AUTH_INVALID', status: 401, message: 'invalid bearer token' })
    expect(seen[0]?.url).toBe('http://service.test/v1/cypher/read')
    expect(seen[0]?.headers.get('authorization')).toBe('Bearer secret-token')
  })
})

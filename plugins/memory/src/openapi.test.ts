import { MEMORY_INPUT_SCHEMAS, MEMORY_OPERATIONS, MEMORY_PERMISSIONS, openEngine } from '@service/core'
import { engineDecorator } from '@service/plugin-engine'
import { errorsPlugin, validatorCompiler } from '@service/plugin-errors'
import { openapiPlugin } from '@service/plugin-openapi'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import memoryPlugin from './plugin.js'

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as JSON
type Json = any

describe('/openapi.json for POST /v1/memory/operations', () => {
  it("publishes every operation's input fields, not an open record", async () => {
    const engine = await openEngine()
    const app = Fastify()
    app.setValidatorCompiler(validatorCompiler())
    await app.register(errorsPlugin)
    await app.register(openapiPlugin)
    await app.register(engineDecorator, { engine })
    await app.register(memoryPlugin, {
      context: {
        workspaceId: 'w',
        actorId: 'a',
        agentId: null,
        sessionId: 'session--standalone-api',
        permissions: MEMORY_PERMISSIONS,
      },
    })
    await app.ready()
    const document: Json = (await app.inject({ url: '/openapi.json' })).json()
    await app.close()
    await engine.close()

    const body = document.paths['/v1/memory/operations'].post.requestBody.content['application/json'].schema
    const resolve = (s: Json): Json => (s.$ref ? document.components.schemas[s.$ref.split('/').pop()] : s)
    const branches: Json[] = resolve(body).anyOf ?? resolve(body).oneOf
    const byOperation = new Map(
      branches.map((b) => [
        resolve(b).properties.operation.const ?? resolve(b).properties.operation.enum?.[0],
        resolve(b),
      ]),
    )
    expect([...byOperation.keys()].sort()).toEqual([...MEMORY_OPERATIONS].sort())
    for (const operation of MEMORY_OPERATIONS) {
      const input = resolve(byOperation.get(operation).properties.input)
      const expected = Object.keys(MEMORY_INPUT_SCHEMAS[operation].properties)
      expect(Object.keys(input.properties), operation).toEqual(expected)
      expect(input.additionalProperties, operation).toBe(false)
    }
    // The spec's remember fields, by name, with their limits.
    const remember = resolve(byOperation.get('remember').properties.input)
    expect(Object.keys(remember.properties)).toEqual(
      expect.arrayContaining([
        'identity_key',
        'kind',
        'schema_version',
        'content',
        'provenance',
        'confidence',
        'valid_from',
        'valid_until',
        'expires_at',
        'tags',
      ]),
    )
    const recallLimits = resolve(byOperation.get('recall').properties.input).properties.limits
    expect(recallLimits.properties.max_depth).toMatchObject({ type: 'integer', minimum: 1, maximum: 16 })
  })
})

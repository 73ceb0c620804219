import { type Engine, openEngine } from '@service/core'
import { errorsPlugin, validatorCompiler } from '@service/plugin-errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import seedPlugin from './plugin.js'

// The domain gates are a core rule: the embedded door (engine.seed.search) and HTTP answer the same codes.
let engine: Engine
let app: FastifyInstance
afterEach(async () => {
  await app?.close()
  await engine?.close()
})

class GateError extends Error {
  constructor(
    readonly code: string,
    readonly statusCode: number,
  ) {
    super(`${code} for the domain`)
  }
}

async function build() {
  engine = await openEngine()
  app = Fastify()
  app.setValidatorCompiler(validatorCompiler())
  await app.register(errorsPlugin)
  await app.register(seedPlugin, {
    engine,
    seed: engine.seed,
    env: { SERVICE_SEED_EMBEDDING_PROVIDER: 'none' },
  })
  await app.ready()
  await engine.write(`CREATE (:Technique {name: 'Alarm Suppression'})`)
}

async function bothDoors(profile: string): Promise<{ embedded: string; http: string }> {
  const body = { objective: 'alarm suppression', domain_profile: profile }
  const embedded = await engine.seed.search(body).then(
    () => 'ok',
    (error: { code?: string }) => error.code ?? 'thrown',
  )
  const res = await app.inject({ method: 'POST', url: '/v1/seed/search', payload: body })
  return { embedded, http: res.statusCode === 200 ? 'ok' : res.json().error.code }
}

describe('domain gates in every door', () => {
  it('with no provider host wired, the enterprise profiles are not part of the deployment', async () => {
    await build()
    for (const profile of ['cti', 'fimi', 'crisis'])
      expect(await bothDoors(profile)).toEqual({
        embedded: 'FEATURE_NOT_AVAILABLE',
        http: 'FEATURE_NOT_AVAILABLE',
      })
    expect(await bothDoors('cross_domain')).toEqual({ embedded: 'ok', http: 'ok' })
  })

  it('the wired gates decide for both doors alike', async () => {
    await build()
    engine.domainGates.use({
      check: (domain) => {
        if (domain === 'cti') throw new GateError('LICENSE_MODULE_MISSING', 403)
        if (domain === 'fimi') throw new GateError('DOMAIN_PROVIDER_NOT_READY', 503)
      },
      validate: () => Promise.reject(new Error('no provider in this test')),
    })
    expect(await bothDoors('cti')).toEqual({
      embedded: 'LICENSE_MODULE_MISSING',
      http: 'LICENSE_MODULE_MISSING',
    })
    expect(await bothDoors('fimi')).toEqual({
      embedded: 'DOMAIN_PROVIDER_NOT_READY',
      http: 'DOMAIN_PROVIDER_NOT_READY',
    })
    expect(await bothDoors('crisis')).toEqual({ embedded: 'ok', http: 'ok' })
  })
})

import { type Engine, openEngine } from '@service/core'
import { engineDecorator } from '@service/plugin-engine'
import { errorsPlugin, validatorCompiler } from '@service/plugin-errors'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import seedPlugin from './plugin.js'

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

async function build(gates?: (domain: string) => void) {
  engine = await openEngine()
  app = Fastify()
  app.setValidatorCompiler(validatorCompiler())
  await app.register(errorsPlugin)
  // A stand-in for the provider host: its gate only has to throw or pass; no provider is called here.
  if (gates)
    engine.domainGates.use({
      check: (d: string) => gates(d),
      validate: () => Promise.reject(new Error('no provider in this test')),
    })
  await app.register(engineDecorator, { engine })
  await app.register(seedPlugin, { env: { SERVICE_SEED_EMBEDDING_PROVIDER: 'none' } })
  await app.ready()
  await engine.write(
    `CREATE (:Technique {name: 'Alarm Suppression', evidence_refs: ['ev-9']}), (:Technique {name: 'Modify Alarm Settings'}), (:Note {name: 'twin'}), (:Note {name: 'twin'})`,
  )
}

const post = (body: unknown) =>
  app.inject({ method: 'POST', url: '/v1/seed/search', payload: body as object })

describe('POST /v1/seed/search', () => {
  it('answers candidates in the envelope', async () => {
    await build()
    const res = await post({ objective: 'alarm suppression', top_k: 1 })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.ok).toBe(true)
    expect(body.result.candidates).toHaveLength(1)
    expect(body.result.candidates[0].explanation.source_refs).toEqual(['ev-9'])
    // The optional display fields survive response serialisation.
    expect(body.result.candidates[0]).toMatchObject({ labels: ['Technique'], title: 'Alarm Suppression' })
  })

  it('400s in order, then gates, then 422s', async () => {
    const seen: string[] = []
    await build((d) => {
      seen.push(d)
      if (d === 'fimi') throw new GateError('LICENSE_MODULE_MISSING', 403)
    })
    const code = async (body: unknown) => {
      const r = await post(body)
      return `${r.statusCode} ${r.json().error?.code ?? 'ok'}`
    }
    expect(await code({ objective: '', domain_profile: 'x' })).toBe('400 INVALID_DOMAIN_PROFILE')
    expect(await code({ objective: '', mode: 'bm25' })).toBe('400 INVALID_RETRIEVAL_MODE')
    expect(await code({ objective: ' ' })).toBe('400 INVALID_SEED_REQUEST')
    expect(await code({ objective: 'x', top_k: 0 })).toBe('400 INVALID_SEED_REQUEST')
    expect(await code({ objective: 'x', score_threshold: 2 })).toBe('400 INVALID_SEED_REQUEST')
    expect(await code({ objective: 'x', workspace_id: '' })).toBe('400 INVALID_WORKSPACE_ID')
    expect(await code({ objective: 'of the', domain_profile: 'fimi' })).toBe('403 LICENSE_MODULE_MISSING')
    expect(await code({ objective: 'of the', domain_profile: 'CTI' })).toBe('422 OVERBROAD_OBJECTIVE')
    expect(seen).toEqual(['fimi', 'cti']) // cross_domain is never gated
    expect(await code({ objective: 'twin', top_k: 1 })).toBe('422 AMBIGUOUS_SEED')
    expect(await code({ objective: 'turbine' })).toBe('422 NO_SEED')
    expect(await code({ objective: 'alarm', mode: 'vector' })).toBe('503 SEMANTIC_PROVIDER_UNAVAILABLE')
    const r = await post({ objective: 'turbine' })
    expect(r.json().error.message).toMatch(/\(fix: .+\)$/)
  })
})

// The domain gates are a core rule: the embedded door (engine.seed.search) and HTTP answer the same codes.
describe('domain gates in every door', () => {
  async function bothDoors(profile: string): Promise<{ embedded: string; http: string }> {
    const body = { objective: 'alarm suppression', domain_profile: profile }
    const embedded = await engine.seed.search(body).then(
      () => 'ok',
      (error: { code?: string }) => error.code ?? 'thrown',
    )
    const res = await post(body)
    return { embedded, http: res.statusCode === 200 ? 'ok' : res.json().error.code }
  }

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
    await build((domain) => {
      if (domain === 'cti') throw new GateError('LICENSE_MODULE_MISSING', 403)
      if (domain === 'fimi') throw new GateError('DOMAIN_PROVIDER_NOT_READY', 503)
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

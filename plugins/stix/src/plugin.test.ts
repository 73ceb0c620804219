import { openEngine } from '@service/core'
import { engineDecorator } from '@service/plugin-engine'
import { errorsPlugin, validatorCompiler } from '@service/plugin-errors'
import Fastify from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import stixPlugin from './plugin.js'

const T = '2024-01-02T03:04:05.000Z'
const id = (type: string, n: number) => `${type}--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
const actor = {
  type: 'threat-actor',
  spec_version: '2.1',
  id: id('threat-actor', 1),
  created: T,
  modified: T,
  name: 'APT',
}
const tool = { type: 'tool', spec_version: '2.1', id: id('tool', 2), created: T, modified: T, name: 'nmap' }
const uses = {
  type: 'relationship',
  spec_version: '2.1',
  id: id('relationship', 3),
  created: T,
  modified: T,
  relationship_type: 'uses',
  source_ref: actor.id,
  target_ref: tool.id,
}
const bundle = (...objects: unknown[]) => ({ type: 'bundle', id: id('bundle', 9), objects })

const LIMIT = 4096
const apps: { close(): Promise<unknown> }[] = []

async function build() {
  const engine = await openEngine()
  const app = Fastify()
  app.setValidatorCompiler(validatorCompiler())
  await app.register(errorsPlugin)
  await app.register(engineDecorator, { engine })
  await app.register(stixPlugin, { importMaxBodyBytes: LIMIT })
  await app.ready()
  apps.push(app, engine)
  return app
}

afterEach(async () => {
  for (const a of apps.splice(0)) await a.close()
})

function multipart(parts: { name: string; value: string; filename?: string }[]): {
  body: Buffer
  type: string
} {
  const boundary = '----stix-test-boundary'
  const chunks = parts.map((p) => {
    const disposition = `form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`
    const type = p.filename === undefined ? '' : 'Content-Type: application/json\r\n'
    return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n${p.value}\r\n`
  })
  return {
    body: Buffer.from(`${chunks.join('')}--${boundary}--\r\n`),
    type: `multipart/form-data; boundary=${boundary}`,
  }
}

describe('STIX routes', () => {
  it('imports JSON and multipart bodies, idempotently', async () => {
    const app = await build()
    const first = await app.inject({
      method: 'POST',
      url: '/v1/import/stix',
      payload: { bundle: bundle(uses, actor, tool) },
    })
    expect(first.statusCode).toBe(200)
    expect(first.json().result).toMatchObject({
      processed_objects: 3,
      applied_mutations: 3,
      rejected_mutations: 0,
      errors: [],
    })
    const form = multipart([
      { name: 'file', filename: 'b.stix', value: JSON.stringify(bundle(actor, tool, uses)) },
      { name: 'workspace_id', value: ' ' },
      { name: 'other', value: 'ignored' },
    ])
    const again = await app.inject({
      method: 'POST',
      url: '/v1/import/stix/file',
      payload: form.body,
      headers: { 'content-type': form.type },
    })
    expect(again.statusCode).toBe(200)
    expect(again.json().result.metrics).toMatchObject({ requested: 3, duplicate: 3 })
  })

  it('answers the FACTS 400 codes and 413 past the import limit', async () => {
    const app = await build()
    const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, payload: payload as string, headers })
    const codeOf = async (p: Promise<{ statusCode: number; json(): { error: { code: string } } }>) => {
      const r = await p
      return `${r.statusCode} ${r.json().error.code}`
    }
    expect(await codeOf(post('/v1/import/stix', {}))).toBe('400 INVALID_STIX_BUNDLE')
    expect(await codeOf(post('/v1/import/stix', { bundle: bundle({ type: 'tool' }) }))).toBe(
      '400 INVALID_STIX_OBJECT',
    )
    const wrongExt = multipart([{ name: 'file', filename: 'b.txt', value: '{}' }])
    expect(await codeOf(post('/v1/import/stix/file', wrongExt.body, { 'content-type': wrongExt.type }))).toBe(
      '400 UNSUPPORTED_FILE_EXTENSION',
    )
    const noFile = multipart([{ name: 'workspace_id', value: 'w' }])
    expect(await codeOf(post('/v1/import/stix/file', noFile.body, { 'content-type': noFile.type }))).toBe(
      '400 MISSING_FILE_FIELD',
    )
    const notJson = multipart([{ name: 'file', filename: 'b.json', value: '{nope' }])
    expect(await codeOf(post('/v1/import/stix/file', notJson.body, { 'content-type': notJson.type }))).toBe(
      '400 INVALID_STIX_FILE',
    )
    expect(await codeOf(post('/v1/import/stix/file', { bundle: 1 }))).toBe('400 INVALID_MULTIPART')
    // Exactly at the limit is accepted (then judged on content); one byte more is 413.
    const pad = (n: number) => {
      const base = JSON.stringify({ bundle: bundle(actor), workspace_id: '' })
      return JSON.stringify({ bundle: bundle(actor), workspace_id: 'x'.repeat(n - base.length) })
    }
    expect(pad(LIMIT).length).toBe(LIMIT)
    expect(
      (await post('/v1/import/stix', pad(LIMIT), { 'content-type': 'application/json' })).statusCode,
    ).toBe(200)
    expect(
      await codeOf(post('/v1/import/stix', pad(LIMIT + 1), { 'content-type': 'application/json' })),
    ).toBe('413 PAYLOAD_TOO_LARGE')
    const big = multipart([{ name: 'file', filename: 'b.json', value: 'x'.repeat(LIMIT + 10) }])
    expect((await post('/v1/import/stix/file', big.body, { 'content-type': big.type })).statusCode).toBe(413)
  })

  it('validates with playbooks and exports deterministically, failing closed in strict mode', async () => {
    const app = await build()
    const { name: _, ...nameless } = { ...tool, type: 'identity', id: id('identity', 4), name: '' }
    const validated = await app.inject({
      method: 'POST',
      url: '/v1/stix/validate',
      payload: { bundle: bundle(nameless) },
    })
    expect(validated.statusCode).toBe(200)
    expect(validated.json().result).toMatchObject({
      source_mode: 'bundle',
      valid: false,
      issues: [
        { code: 'STIX_IDENTITY_NAME_REQUIRED', field: 'name', severity: 'error', node_id: id('identity', 4) },
      ],
      playbooks_applied: [{ id: 'PLAYBOOK_FIX_IDENTITY_NAME', node_id: id('identity', 4) }],
      persistence: { applied_mutations: 1 },
      errors: [],
    })
    const a = await app.inject({ method: 'GET', url: '/v1/export/stix' })
    const b = await app.inject({ method: 'GET', url: '/v1/export/stix?mode=strict&profile=stix-mvp' })
    expect(a.statusCode).toBe(200)
    expect(a.body).toBe(b.body)
    // Streamed in pieces, with the exact length announced up front.
    expect(Number(a.headers['content-length'])).toBe(a.rawPayload.length)
    expect(a.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(JSON.parse(a.body).objects[0]).toMatchObject({ name: 'Unknown Identity' })
    await app.inject({
      method: 'POST',
      url: '/v1/import/stix',
      payload: {
        bundle: bundle({
          ...uses,
          id: id('relationship', 5),
          target_ref: id('identity', 4),
          source_ref: id('identity', 4),
          relationship_type: 'x',
        }),
      },
    })
    const dangling = bundle({ ...tool, id: id('tool', 6), created_by_ref: id('identity', 77) })
    await app.inject({ method: 'POST', url: '/v1/import/stix', payload: { bundle: dangling } })
    const strict = await app.inject({ method: 'GET', url: '/v1/export/stix' })
    expect(strict.statusCode).toBe(400)
    expect(strict.json()).toMatchObject({
      ok: false,
      error: {
        code: 'EXPORT_PLAN_FAILED',
        message: `strict export mode rejected export plan: STIX_REFERENCE_DANGLING: ${id('tool', 6)}: reference ${id('identity', 77)} is not exported`,
      },
    })
    const permissive = JSON.parse(
      (await app.inject({ method: 'GET', url: '/v1/export/stix?mode=permissive' })).body,
    )
    expect(permissive.export_diagnostics.exclusions).toEqual([
      {
        code: 'STIX_REFERENCE_DANGLING',
        message: expect.any(String),
        target_kind: 'node',
        record_id: id('tool', 6),
      },
    ])
    expect((await app.inject({ method: 'GET', url: '/v1/export/stix?mode=loose' })).json().error.code).toBe(
      'INVALID_EXPORT_MODE',
    )
  })
})

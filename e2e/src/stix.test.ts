/**
 * STIX 2.1 over HTTP: both import routes (JSON and multipart), the FACTS 400 codes, 413 at the import
 * limit, dedup and atomicity, validation with playbooks, and deterministic export (twice, and across a
 * restart in persistent mode). ATT&CK data comes from SHARED_DIR when present.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ErrorBody, type RunningServer, sharedDir, startServer } from './harness.js'

interface Ok<T> {
  ok: true
  result: T
}
interface ImportResult {
  processed_objects: number
  applied_mutations: number
  rejected_mutations: number
  errors: string[]
  outcomes: { id: string; record_type: string; status: string; reference?: string; error_code?: string }[]
  metrics: Record<string, number>
}
interface Bundle {
  type: 'bundle'
  id: string
  objects: Record<string, unknown>[]
  export_metadata: Record<string, string>
  export_diagnostics: { exclusions: { code: string; record_id: string }[] }
}

const LIMIT = 8192
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
const malware = {
  type: 'malware',
  spec_version: '2.1',
  id: id('malware', 2),
  created: T,
  modified: T,
  name: 'Bad',
  is_family: true,
}
const uses = {
  type: 'relationship',
  spec_version: '2.1',
  id: id('relationship', 3),
  created: T,
  modified: T,
  relationship_type: 'uses',
  source_ref: actor.id,
  target_ref: malware.id,
}
const bundle = (...objects: unknown[]) => ({ type: 'bundle', id: id('bundle', 9), objects })
const attackFile = join(sharedDir, 'data', 'stix', 'attack', 'ics-attack-18.1.json')

function multipart(parts: { name: string; value: string; filename?: string }[]) {
  const boundary = '----e2e-stix-boundary'
  const text = parts
    .map((p) => {
      const file =
        p.filename === undefined ? '' : `; filename="${p.filename}"\r\nContent-Type: application/json`
      return `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${file}\r\n\r\n${p.value}\r\n`
    })
    .join('')
  return {
    rawBody: Buffer.from(`${text}--${boundary}--\r\n`),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  }
}

describe('STIX over HTTP', () => {
  let server: RunningServer
  const ws = (name: string) => `workspace--e2e-stix-${name}`
  const importJson = (body: Record<string, unknown>) =>
    server.request<Ok<ImportResult>>('/v1/import/stix', { body })
  const exportRaw = (query = '') => server.request<Bundle>(`/v1/export/stix${query}`)

  beforeAll(async () => {
    server = await startServer({ env: { SERVICE_HTTP_IMPORT_MAX_BODY_BYTES: String(LIMIT) } })
  })
  afterAll(async () => {
    await server.stop()
  })

  it('imports JSON and multipart, re-import is all duplicate', async () => {
    const first = await importJson({ bundle: bundle(uses, actor, malware), workspace_id: ws('a') })
    expect(first.status).toBe(200)
    expect(first.json.result).toMatchObject({
      processed_objects: 3,
      applied_mutations: 3,
      rejected_mutations: 0,
    })
    expect(first.json.result.outcomes.map((o) => o.record_type)).toEqual(['entity', 'relationship', 'entity'])
    const form = multipart([
      { name: 'file', filename: 'bundle.json', value: JSON.stringify(bundle(actor, malware, uses)) },
      { name: 'workspace_id', value: ws('a') },
    ])
    const again = await server.request<Ok<ImportResult>>('/v1/import/stix/file', form)
    expect(again.status).toBe(200)
    expect(again.json.result.metrics).toMatchObject({ requested: 3, duplicate: 3, created: 0 })
  })

  it('answers the 400 codes and 413 at the limit edges', async () => {
    const code = async (path: string, options: Parameters<RunningServer['request']>[1]) => {
      const r = await server.request<ErrorBody>(path, options)
      return `${r.status} ${r.json?.error?.code}`
    }
    expect(await code('/v1/import/stix', { body: { bundle: { type: 'bundle', objects: [] } } })).toBe(
      '400 INVALID_STIX_BUNDLE',
    )
    expect(await code('/v1/import/stix', { body: { bundle: bundle({ id: actor.id }) } })).toBe(
      '400 INVALID_STIX_OBJECT',
    )
    expect(
      await code('/v1/import/stix', { body: { bundle: bundle(actor, { ...actor, name: 'other' }) } }),
    ).toBe('400 CONFLICTING_STIX_ID')
    expect(await code('/v1/import/stix', { body: { bundle: bundle({ ...actor, confidence: 400 }) } })).toBe(
      '400 INVALID_STIX_CONFIDENCE',
    )
    expect(
      await code('/v1/import/stix/file', multipart([{ name: 'file', filename: 'a.txt', value: '{}' }])),
    ).toBe('400 UNSUPPORTED_FILE_EXTENSION')
    expect(await code('/v1/import/stix/file', multipart([{ name: 'x', value: 'y' }]))).toBe(
      '400 MISSING_FILE_FIELD',
    )
    expect(
      await code('/v1/import/stix/file', multipart([{ name: 'file', filename: 'a.stix', value: 'nope' }])),
    ).toBe('400 INVALID_STIX_FILE')
    expect(await code('/v1/stix/validate', { body: { source: 'elsewhere' } })).toBe('400 INVALID_SOURCE_MODE')
    expect(await code('/v1/stix/validate', { body: {} })).toBe('400 MISSING_BUNDLE')
    expect(await code('/v1/import/stix', { body: { bundle: bundle(actor) }, token: null })).toMatch(/^401 /)
    const sized = (n: number) => {
      const base = JSON.stringify({ bundle: bundle(actor), budget_ref: '' })
      return JSON.stringify({ bundle: bundle(actor), budget_ref: 'b'.repeat(n - base.length) })
    }
    const json = { 'content-type': 'application/json' }
    expect((await server.request('/v1/import/stix', { rawBody: sized(LIMIT), headers: json })).status).toBe(
      200,
    )
    expect(await code('/v1/import/stix', { rawBody: sized(LIMIT + 1), headers: json })).toBe(
      '413 PAYLOAD_TOO_LARGE',
    )
    const big = multipart([{ name: 'file', filename: 'big.json', value: ' '.repeat(LIMIT + 1) }])
    expect((await server.request('/v1/import/stix/file', big)).status).toBe(413)
  })

  it('commits nothing when an endpoint does not resolve, and still answers 200', async () => {
    const dangling = { ...uses, id: id('relationship', 4), target_ref: id('malware', 404) }
    const r = await importJson({ bundle: bundle(dangling, actor), workspace_id: ws('b') })
    expect(r.status).toBe(200)
    expect(r.json.result.outcomes).toEqual([
      {
        id: id('relationship', 4),
        record_type: 'relationship',
        status: 'unresolved_reference',
        reference: id('malware', 404),
        error_code: 'UNRESOLVED_STIX_REFERENCE',
      },
      { id: actor.id, record_type: 'entity', status: 'rejected', error_code: 'ATOMIC_IMPORT_ABORTED' },
    ])
    expect((await exportRaw(`?workspace_id=${ws('b')}`)).json.objects).toEqual([])
  })

  it('validates with playbooks and persists the corrected bundle', async () => {
    const { is_family: _, ...noFamily } = { ...malware, id: id('malware', 6) }
    const r = await server.request<Ok<Record<string, unknown>>>('/v1/stix/validate', {
      body: { bundle: bundle(noFamily), workspace_id: ws('c') },
    })
    expect(r.status).toBe(200)
    expect(r.json.result).toMatchObject({
      source_mode: 'bundle',
      valid: false,
      issues: [{ code: 'STIX_MALWARE_IS_FAMILY_REQUIRED', severity: 'error', node_id: id('malware', 6) }],
      playbooks_applied: [{ id: 'PLAYBOOK_FIX_MALWARE_IS_FAMILY', node_id: id('malware', 6) }],
      corrections_summary: { total_corrections: 1, by_strategy: { playbook_default: 1 } },
      persistence: { applied_mutations: 1 },
      errors: [],
    })
    const graph = await server.request<Ok<{ valid: boolean }>>('/v1/stix/validate', {
      body: { source: 'graph', workspace_id: ws('c') },
    })
    expect(graph.json.result.valid).toBe(true)
    const out = (await exportRaw(`?workspace_id=${ws('c')}`)).json
    expect(out.objects[0]).toMatchObject({
      is_family: false,
      x_service_corrections: [{ field: 'is_family', playbook_id: 'PLAYBOOK_FIX_MALWARE_IS_FAMILY' }],
    })
  })

  it('exports byte-identically and fails closed in strict mode', async () => {
    const a = await exportRaw(`?workspace_id=${ws('a')}`)
    const b = await exportRaw(`?workspace_id=${ws('a')}&mode=strict&profile=stix-mvp`)
    expect(a.status).toBe(200)
    expect(a.text).toBe(b.text)
    expect(a.json.objects.map((o) => o.id)).toEqual([malware.id, uses.id, actor.id])
    expect(a.json.export_metadata.determinism_key).toBe(
      'snapshot--current|transaction--http-export|service-http-server-v0|stix-mvp|strict',
    )
    await importJson({
      bundle: bundle({ ...malware, id: id('malware', 7), created_by_ref: id('identity', 404) }),
      workspace_id: ws('a'),
    })
    const strict = await server.request<ErrorBody>(`/v1/export/stix?workspace_id=${ws('a')}`)
    expect(strict.status).toBe(400)
    expect(strict.json.error.code).toBe('EXPORT_PLAN_FAILED')
    expect(strict.json.error.message).toMatch(
      /^strict export mode rejected export plan: STIX_REFERENCE_DANGLING: malware--/,
    )
    const permissive = await exportRaw(`?workspace_id=${ws('a')}&mode=permissive`)
    expect(permissive.json.export_diagnostics.exclusions).toMatchObject([
      { code: 'STIX_REFERENCE_DANGLING', record_id: id('malware', 7) },
    ])
    const code = async (q: string) => (await server.request<ErrorBody>(`/v1/export/stix${q}`)).json.error.code
    expect(await code('?mode=loose')).toBe('INVALID_EXPORT_MODE')
    expect(await code('?profile=full')).toBe('INVALID_EXPORT_PROFILE')
    expect(await code('?transaction_id=%20')).toBe('INVALID_TRANSACTION_ID')
    expect(await code('?exporter_version=%20')).toBe('EXPORT_PLAN_FAILED')
  })
})

describe('STIX export across a restart (persistent storage)', () => {
  it('is byte-identical after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'e2e-stix-'))
    const env = { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: dir }
    const objects = existsSync(attackFile)
      ? (JSON.parse(readFileSync(attackFile, 'utf8')) as { objects: unknown[] }).objects
      : [actor, malware, uses]
    let server = await startServer({ env })
    const imported = await server.request<Ok<ImportResult>>('/v1/import/stix', {
      body: { bundle: { type: 'bundle', objects } },
    })
    expect(imported.status).toBe(200)
    expect(imported.json.result.metrics.created).toBe(objects.length)
    const before = await server.request('/v1/export/stix')
    expect(before.status).toBe(200)
    await server.stop()
    server = await startServer({ env })
    try {
      const after = await server.request('/v1/export/stix')
      expect(after.text).toBe(before.text)
      const again = await server.request<Ok<ImportResult>>('/v1/import/stix', {
        body: { bundle: { type: 'bundle', objects } },
      })
      expect(again.json.result.metrics.duplicate).toBe(objects.length)
    } finally {
      await server.stop()
    }
  })
})

describe('STIX at a snapshot', () => {
  it('exports and validates the graph as it was when a session import pinned it', async () => {
    const server = await startServer()
    try {
      const ws = 'workspace--snapshots'
      const { session_id } = (
        await server.request<{ result: { session_id: string } }>('/v1/sessions/start', {
          body: { workspace_id: ws, actor_id: 'analyst' },
        })
      ).json.result
      const imported = await server.request('/v1/import/stix', {
        body: { bundle: bundle(actor, malware, uses), workspace_id: ws, session_id },
      })
      expect(imported.status).toBe(200)
      const timeline = await server.request<{
        result: { roots: { boundary: { boundary_id: string; kind: string }; children: unknown[] }[] }
      }>(`/v1/explorer/sessions/${session_id}/timeline`)
      const boundaries: { boundary_id: string; kind: string }[] = []
      let level = timeline.json.result.roots as {
        boundary: { boundary_id: string; kind: string }
        children: unknown[]
      }[]
      while (level.length > 0) {
        boundaries.push(level[0]!.boundary)
        level = level[0]!.children as typeof level
      }
      const snapshot = boundaries.find((b) => b.kind === 'snapshot')
      expect(snapshot).toBeDefined()
      // After the snapshot the malware is deleted from the graph.
      await server.request('/v1/cypher/write', {
        body: { query: 'MATCH (m:Malware) DETACH DELETE m', workspace_id: ws },
      })
      const now = await server.request<{ objects: { id: string }[] }>(
        `/v1/export/stix?mode=permissive&workspace_id=${ws}`,
      )
      const then = await server.request<{
        objects: { id: string }[]
        export_metadata: { snapshot_id: string }
      }>(`/v1/export/stix?mode=permissive&workspace_id=${ws}&snapshot_id=${snapshot!.boundary_id}`)
      expect(then.status).toBe(200)
      expect(then.json.export_metadata.snapshot_id).toBe(snapshot!.boundary_id)
      expect(then.json.objects.map((o) => o.id).sort()).toEqual([actor.id, malware.id, uses.id].sort())
      expect(now.json.objects.map((o) => o.id)).not.toContain(malware.id)
      const validated = await server.request<{ result: { source_mode: string; valid: boolean } }>(
        '/v1/stix/validate',
        {
          body: { source: 'graph', workspace_id: ws, snapshot_id: snapshot!.boundary_id },
        },
      )
      expect(validated.status).toBe(200)
      expect(validated.json.result.source_mode).toBe('graph')
      const unknown = await server.request<ErrorBody>(
        `/v1/export/stix?workspace_id=${ws}&snapshot_id=snapshot--nope`,
      )
      expect(unknown.status).toBe(404)
      expect(unknown.json.error.code).toBe('SNAPSHOT_NOT_FOUND')
    } finally {
      await server.stop()
    }
  })
})

describe.skipIf(!existsSync(attackFile))('CLI import of a large file', () => {
  it('imports the ATT&CK ICS bundle through a running server in ordered batches', async () => {
    const server = await startServer()
    try {
      const { spawnSync } = await import('node:child_process')
      const { serverMain, TOKEN } = await import('./harness.js')
      const run = spawnSync(
        process.execPath,
        [serverMain, 'import', attackFile, '--url', server.url, '--batch-bytes', '400000'],
        {
          encoding: 'utf8',
          env: { ...process.env, SERVICE_HTTP_AUTH_TOKEN: TOKEN },
        },
      )
      expect(run.status, run.stderr).toBe(0)
      const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!)
      expect(summary.objects).toBe(1826)
      expect(summary.batches).toBeGreaterThan(1)
      expect(summary.metrics.rejected + summary.metrics.unresolved_reference + summary.metrics.failed).toBe(0)
      expect(run.stderr).toContain('importing [')
      // A second run changes nothing: every object is a duplicate.
      const again = spawnSync(process.execPath, [serverMain, 'import', attackFile, '--url', server.url], {
        encoding: 'utf8',
        env: { ...process.env, SERVICE_HTTP_AUTH_TOKEN: TOKEN },
      })
      expect(JSON.parse(again.stdout.trim().split('\n').at(-1)!).metrics.created).toBe(0)
    } finally {
      await server.stop()
    }
  })
})

describe('STIX import metrics', () => {
  it('counts imported objects by outcome in /metrics', async () => {
    const server = await startServer()
    try {
      await server.request('/v1/import/stix', { body: { bundle: bundle(actor, malware, uses) } })
      await server.request('/v1/import/stix', { body: { bundle: bundle(actor, malware, uses) } })
      const metrics = await server.request('/metrics', { token: null })
      expect(metrics.text).toContain('service_stix_import_records_total{outcome="requested"} 6')
      expect(metrics.text).toContain('service_stix_import_records_total{outcome="created"} 3')
      expect(metrics.text).toContain('service_stix_import_records_total{outcome="duplicate"} 3')
      expect(metrics.text).toContain('service_stix_import_records_total{outcome="failed"} 0')
    } finally {
      await server.stop()
    }
  })
})

import { describe, expect, it } from 'vitest'
import { isEngineError } from '../errors.js'
import { openEngine } from '../runtime/index.js'
import { MAX_NESTING, nestingDepth } from './bundle.js'
import { canonicalize, fnv1a64Hex, uuidV5 } from './canonical.js'
import { exportStix } from './export.js'
import { importStix } from './import.js'
import { validateStix } from './validate-request.js'

const T = '2024-01-02T03:04:05.000Z'
const id = (type: string, n: number) => `${type}--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
const identity = {
  type: 'identity',
  spec_version: '2.1',
  id: id('identity', 1),
  created: T,
  modified: T,
  name: 'ACME',
}
const malware = {
  type: 'malware',
  spec_version: '2.1',
  id: id('malware', 2),
  created: T,
  modified: T,
  name: 'Bad',
  is_family: true,
  created_by_ref: identity.id,
  confidence: 90,
}
const actor = {
  type: 'threat-actor',
  spec_version: '2.1',
  id: id('threat-actor', 3),
  created: T,
  modified: T,
  name: 'APT',
}
const uses = {
  type: 'relationship',
  spec_version: '2.1',
  id: id('relationship', 4),
  created: T,
  modified: T,
  relationship_type: 'uses',
  source_ref: actor.id,
  target_ref: malware.id,
}
const bundle = (...objects: unknown[]) => ({ type: 'bundle', id: id('bundle', 99), objects })

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
    return 'ok'
  } catch (error) {
    return isEngineError(error) ? error.code : String(error)
  }
}

describe('canonical JSON and ids', () => {
  it('follows RFC 8785 key order and number form', () => {
    expect(canonicalize({ b: 1, a: [1e21, 0.1, -0], '\u00e9': 'x', A: null })).toBe(
      '{"A":null,"a":[1e+21,0.1,0],"b":1,"é":"x"}',
    )
  })
  it('derives v5 uuids and FNV-1a 64', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    )
    expect(fnv1a64Hex('')).toBe('cbf29ce484222325')
    expect(fnv1a64Hex('a')).toBe('af63dc4c8601ec8c')
  })
})

describe('STIX import', () => {
  it('creates nodes before edges whatever the order, then re-import is all duplicate with no commit', async () => {
    const engine = await openEngine()
    const first = await importStix(engine, { bundle: bundle(uses, malware, actor, identity) })
    expect(first.result.metrics).toEqual({
      requested: 4,
      created: 4,
      updated: 0,
      duplicate: 0,
      rejected: 0,
      unresolved_reference: 0,
      failed: 0,
    })
    expect(first.result.applied_mutations).toBe(4)
    expect(first.result.outcomes.map((o) => [o.id, o.record_type])).toEqual([
      [identity.id, 'entity'],
      [malware.id, 'entity'],
      [uses.id, 'relationship'],
      [actor.id, 'entity'],
    ])
    const again = await importStix(engine, { bundle: bundle(identity, actor, malware, uses) })
    expect(again.result.metrics.duplicate).toBe(4)
    expect(again.sequence).toBeNull()
    const confidence = await engine.readGraph('workspace--http-default', (s) => {
      const [n] = s.propertyNodeIds(s.names.id('StixObject'), s.names.id('stix_id'), malware.id)
      return s.node(n as number)?.props.get(s.names.id('confidence'))
    })
    expect(confidence).toBe(0.9)
    const changed = await importStix(engine, {
      bundle: bundle({ ...actor, modified: '2024-02-02T00:00:00.000Z' }),
    })
    expect(changed.result.outcomes[0]?.status).toBe('updated')
    await engine.close()
  })

  it('aborts atomically on an unresolved endpoint and still reports', async () => {
    const engine = await openEngine()
    const dangling = { ...uses, target_ref: id('malware', 77) }
    const report = await importStix(engine, { bundle: bundle(actor, dangling) })
    expect(report.sequence).toBeNull()
    expect(report.result.applied_mutations).toBe(0)
    expect(report.result.rejected_mutations).toBe(2)
    expect(report.result.outcomes).toEqual([
      {
        id: uses.id,
        record_type: 'relationship',
        status: 'unresolved_reference',
        reference: id('malware', 77),
        error_code: 'UNRESOLVED_STIX_REFERENCE',
      },
      { id: actor.id, record_type: 'entity', status: 'rejected', error_code: 'ATOMIC_IMPORT_ABORTED' },
    ])
    expect(await engine.readGraph('workspace--http-default', (s) => s.nodeCount())).toBe(0)
    await engine.close()
  })

  it('takes ids as the HTTP routes do: trimmed, and a blank one means the default', async () => {
    const engine = await openEngine()
    await importStix(engine, { bundle: bundle(actor), workspaceId: '   ', sessionId: '' })
    await importStix(engine, { bundle: bundle(identity), workspaceId: ' workspace--other ' })
    expect(await engine.readGraph('workspace--http-default', (s) => s.nodeCount())).toBe(1)
    expect(await engine.readGraph('workspace--other', (s) => s.nodeCount())).toBe(1)
    const exported = JSON.parse((await exportStix(engine, { workspaceId: ' workspace--other' })).text)
    expect(exported.objects.map((o: { id: string }) => o.id)).toEqual([identity.id])
    await engine.close()
  })

  it('refuses bad shapes with the FACTS codes', async () => {
    const engine = await openEngine()
    expect(await code(importStix(engine, { bundle: undefined }))).toBe('INVALID_STIX_BUNDLE')
    expect(await code(importStix(engine, { bundle: { type: 'bundle', objects: [] } }))).toBe(
      'INVALID_STIX_BUNDLE',
    )
    expect(await code(importStix(engine, { bundle: { type: 'nope', objects: [actor] } }))).toBe(
      'INVALID_STIX_BUNDLE',
    )
    expect(await code(importStix(engine, { bundle: bundle({ id: actor.id }) }))).toBe('INVALID_STIX_OBJECT')
    expect(await code(importStix(engine, { bundle: bundle(actor, { ...actor, name: 'x' }) }))).toBe(
      'CONFLICTING_STIX_ID',
    )
    expect(await code(importStix(engine, { bundle: bundle({ ...actor, confidence: 101 }) }))).toBe(
      'INVALID_STIX_CONFIDENCE',
    )
    const exact = await importStix(engine, { bundle: { type: 'BUNDLE', objects: [actor, actor] } })
    expect(exact.result.metrics).toMatchObject({ created: 1, duplicate: 1 })
    await engine.close()
  })

  it('checks the evidence envelope and keeps provenance', async () => {
    const engine = await openEngine()
    const record = {
      id: 'ev-1',
      source_id: 'doc-1',
      content_sha256: 'a'.repeat(64),
      payload: 'excerpt',
      locator: { type: 'page', page: 3 },
    }
    const evidence = (over: Record<string, unknown>) => ({
      schema_version: '1.0',
      records: [record],
      annotations: { [actor.id]: { evidence_refs: ['ev-1'], confidence: 85 } },
      ...over,
    })
    expect(
      await code(importStix(engine, { bundle: bundle(actor), evidence: evidence({ schema_version: '2' }) })),
    ).toBe('UNSUPPORTED_EVIDENCE_SCHEMA_VERSION')
    expect(
      await code(
        importStix(engine, { bundle: bundle(actor), evidence: evidence({ records: [record, record] }) }),
      ),
    ).toBe('DUPLICATE_EVIDENCE_ID')
    expect(
      await code(
        importStix(engine, {
          bundle: bundle(actor),
          evidence: evidence({ records: [{ ...record, content_sha256: 'x' }] }),
        }),
      ),
    ).toBe('INVALID_EVIDENCE_DIGEST')
    expect(
      await code(
        importStix(engine, {
          bundle: bundle(actor),
          evidence: evidence({ records: [{ ...record, locator: { type: 'page' } }] }),
        }),
      ),
    ).toBe('INVALID_EVIDENCE_LOCATOR')
    expect(
      await code(
        importStix(engine, {
          bundle: bundle(actor),
          evidence: evidence({ annotations: { [malware.id]: {} } }),
        }),
      ),
    ).toBe('ANNOTATION_TARGET_NOT_FOUND')
    expect(
      await code(
        importStix(engine, {
          bundle: bundle(actor),
          evidence: evidence({ annotations: { [actor.id]: { status: 'validated' } } }),
        }),
      ),
    ).toBe('INVALID_IMPORT_STATUS')
    expect(
      await code(
        importStix(engine, {
          bundle: bundle(actor),
          evidence: evidence({ annotations: { [actor.id]: { evidence_refs: ['ev-9'] } } }),
        }),
      ),
    ).toBe('EVIDENCE_NOT_FOUND')
    await importStix(engine, { bundle: bundle(actor), evidence: evidence({}) })
    const out = JSON.parse((await exportStix(engine)).text)
    expect(out.objects[0]).toMatchObject({ confidence: 85, x_service_evidence_refs: ['ev-1'] })
    expect(out.x_service_evidence).toEqual([record])
    await engine.close()
  })
})

describe('STIX export', () => {
  it('is canonical, ordered by id and byte-identical across calls', async () => {
    const engine = await openEngine()
    await importStix(engine, { bundle: bundle(uses, malware, actor, identity) })
    const a = await exportStix(engine)
    const b = await exportStix(engine)
    expect(a.text).toBe(b.text)
    const out = JSON.parse(a.text)
    expect(out.id).toMatch(/^bundle--[0-9a-f-]{36}$/)
    expect(out.objects.map((o: { id: string }) => o.id)).toEqual([identity.id, malware.id, uses.id, actor.id])
    const { x_service_source_record_id, ...rest } = out.objects[1]
    expect(rest).toEqual(malware)
    expect(x_service_source_record_id).toMatch(/^record--/)
    expect(out.export_metadata.determinism_key).toBe(
      'snapshot--current|transaction--http-export|service-http-server-v0|stix-mvp|strict',
    )
    expect(await code(exportStix(engine, { mode: 'x' }))).toBe('INVALID_EXPORT_MODE')
    expect(await code(exportStix(engine, { profile: 'x' }))).toBe('INVALID_EXPORT_PROFILE')
    expect(await code(exportStix(engine, { transactionId: ' ' }))).toBe('INVALID_TRANSACTION_ID')
    expect(await code(exportStix(engine, { exporterVersion: '' }))).toBe('EXPORT_PLAN_FAILED')
    await engine.close()
  })

  it('sends a large export in pieces that join to the text its id and length describe', async () => {
    const engine = await openEngine()
    // Over two pieces of objects, names outside ASCII (the length is in UTF-8 bytes), ids out of order.
    const tools = Array.from({ length: 1100 }, (_, i) => ({
      type: 'tool',
      spec_version: '2.1',
      id: id('tool', 5000 - i),
      created: T,
      modified: T,
      name: `outil n° ${i} — é`,
    }))
    await importStix(engine, { bundle: bundle(...tools) })
    const out = await exportStix(engine)
    const pieces = [...out.pieces()]
    expect(pieces.length).toBeGreaterThan(3)
    const text = pieces.join('')
    expect(text).toBe(out.text)
    expect(out.byteLength).toBe(Buffer.byteLength(text))
    const parsed = JSON.parse(text)
    const ids = parsed.objects.map((o: { id: string }) => o.id)
    expect(ids).toEqual([...ids].sort())
    expect(ids).toHaveLength(1100)
    // The id hashes the whole objects text, as one string would.
    const key = parsed.export_metadata.determinism_key
    expect(parsed.id).toBe(`bundle--${uuidV5(`${key}\n${canonicalize(parsed.objects)}`)}`)
    await engine.close()
  })

  it('fails closed in strict mode and lists exclusions in permissive mode', async () => {
    const engine = await openEngine()
    await importStix(engine, { bundle: bundle(uses, malware, actor, identity) })
    await engine.write("CREATE (:Malware {name: 'native', status: 'candidate'})")
    let message = ''
    try {
      await exportStix(engine)
    } catch (error) {
      message = (error as Error).message
      expect(isEngineError(error) && error.code).toBe('EXPORT_PLAN_FAILED')
    }
    expect(message).toMatch(
      /^strict export mode rejected export plan: EXPORT_STATUS_NOT_READY: malware--[0-9a-f]{16}: .*; STIX_RAW_REQUIRED: /,
    )
    const out = JSON.parse((await exportStix(engine, { mode: 'permissive' })).text)
    expect(out.objects).toHaveLength(4)
    expect(out.export_diagnostics.exclusions).toEqual([
      expect.objectContaining({ code: 'EXPORT_STATUS_NOT_READY', target_kind: 'node' }),
    ])
    await engine.close()
  })
})

describe('STIX validation', () => {
  it('reports FACTS issue codes, runs playbooks and persists the corrected bundle', async () => {
    const engine = await openEngine()
    const { name: _n, ...nameless } = identity
    const { valid_from: _v, ...indicator } = {
      type: 'indicator',
      spec_version: '2.1',
      id: id('indicator', 5),
      created: T,
      modified: T,
      pattern: "[url:value = 'x']",
      pattern_type: 'stix',
      valid_from: T,
    }
    const result = await validateStix(engine, {
      bundle: bundle(nameless, indicator),
      now: () => Date.UTC(2025, 0, 1, 12, 0, 0, 123),
    })
    expect(result.valid).toBe(false)
    expect(result.issues.map((i) => [i.code, i.node_id])).toEqual([
      ['STIX_IDENTITY_NAME_REQUIRED', identity.id],
      ['STIX_INDICATOR_VALID_FROM_REQUIRED', id('indicator', 5)],
    ])
    expect(result.playbooks_applied.map((p) => p.id)).toEqual([
      'PLAYBOOK_FIX_IDENTITY_NAME',
      'PLAYBOOK_FIX_INDICATOR_VALID_FROM_PROCESSING_UTC',
    ])
    expect(result.corrections_summary).toEqual({
      total_corrections: 2,
      by_field: { name: 1, valid_from: 1 },
      by_strategy: { playbook_default: 1, processing_utc_default: 1 },
      by_playbook_id: { PLAYBOOK_FIX_IDENTITY_NAME: 1, PLAYBOOK_FIX_INDICATOR_VALID_FROM_PROCESSING_UTC: 1 },
    })
    expect(result.persistence?.metrics.created).toBe(2)
    const out = JSON.parse((await exportStix(engine)).text)
    const fixed = out.objects.find((o: { type: string }) => o.type === 'indicator')
    expect(fixed.valid_from).toBe('2025-01-01T12:00:00Z')
    expect(fixed.x_service_corrections[0]).toMatchObject({
      field: 'valid_from',
      strategy: 'processing_utc_default',
      playbook_id: 'PLAYBOOK_FIX_INDICATOR_VALID_FROM_PROCESSING_UTC',
    })
    const graph = await validateStix(engine, { source: 'graph' })
    expect(graph).toMatchObject({ source_mode: 'graph', valid: true, issues: [] })
    expect(await code(validateStix(engine, { source: 'x' }))).toBe('INVALID_SOURCE_MODE')
    expect(await code(validateStix(engine, {}))).toBe('MISSING_BUNDLE')
    expect((await validateStix(engine, { bundle: { type: 'bundle', objects: [] } })).valid).toBe(true)
    await engine.close()
  })
})

// Defects the stix fuzz target found (tools/src/fuzz/targets/stix.ts); each failed with a TypeError.
describe('STIX inputs that reach Object.prototype or leave JSON (fuzz findings)', () => {
  it('validates objects whose type or source_name is an Object.prototype name', async () => {
    const engine = await openEngine({ storage: { mode: 'ephemeral' } })
    for (const type of ['constructor', 'toString', '__proto__']) {
      const result = await validateStix(engine, {
        bundle: { type: 'bundle', objects: [{ ...malware, type }] },
      })
      expect(result.valid).toBe(false)
    }
    const reference = { ...malware, external_references: [{ source_name: 'constructor', url: 'https://x' }] }
    const result = await validateStix(engine, { bundle: { type: 'bundle', objects: [reference] } })
    expect(result.issues.filter((i) => i.code === 'STIX_EXTERNAL_REFERENCE_INVALID')).toEqual([])
  })

  it('imports a custom type named constructor with its own label, and a relationship_type named constructor', async () => {
    const engine = await openEngine({ storage: { mode: 'ephemeral' } })
    const custom = { ...identity, id: id('constructor', 3), type: 'constructor' }
    const rel = {
      type: 'relationship',
      spec_version: '2.1',
      id: id('relationship', 4),
      created: T,
      modified: T,
      relationship_type: 'constructor',
      source_ref: identity.id,
      target_ref: custom.id,
    }
    const report = await importStix(engine, { bundle: { type: 'bundle', objects: [identity, custom, rel] } })
    expect(report.result.outcomes.map((o) => o.status)).toEqual(['created', 'created', 'created'])
    const read = await engine.read('MATCH (a)-[r]->(b:Constructor) RETURN type(r) AS t, labels(b) AS l')
    expect(read.data?.rows).toEqual([['Constructor', ['StixObject', 'Constructor']]])
  })

  it('refuses a number JSON cannot represent (1e999 parses as Infinity) as INVALID_STIX_OBJECT', async () => {
    const engine = await openEngine({ storage: { mode: 'ephemeral' } })
    const bundle = JSON.parse(
      `{"type":"bundle","objects":[${JSON.stringify(identity).slice(0, -1)},"x_n":1e999}]}`,
    )
    const error = await importStix(engine, { bundle }).catch((e: unknown) => e)
    expect(isEngineError(error) && error.code).toBe('INVALID_STIX_OBJECT')
    expect(await engine.read('MATCH (n) RETURN count(n)').then((r) => r.data?.rows)).toEqual([[0]])
  })

  it('keeps a property named __proto__ in canonical JSON', () => {
    const value = JSON.parse('{"b":1,"__proto__":{"x":[1]},"a":2}')
    expect(canonicalize(value)).toBe('{"__proto__":{"x":[1]},"a":2,"b":1}')
  })
})

describe('nesting depth (a fuzz finding: the recursive walkers overflowed the stack)', () => {
  const nest = (depth: number) => {
    let value: unknown = 'leaf'
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { x: value }
    return value
  }
  const bundleWith = (depth: number) => ({
    type: 'bundle',
    objects: [{ ...identity, x_deep: nest(depth - 1) }],
  })

  it('accepts an object at the nesting limit and refuses one past it, for import and validation', async () => {
    const engine = await openEngine({ storage: { mode: 'ephemeral' } })
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: unknown) => (isEngineError(e) ? e.code : String(e)),
      )
    expect(nestingDepth(bundleWith(MAX_NESTING).objects[0], 1000)).toBe(MAX_NESTING)
    expect(await code(validateStix(engine, { bundle: bundleWith(MAX_NESTING) }))).toBe('ok')
    expect(await code(importStix(engine, { bundle: bundleWith(MAX_NESTING + 1) }))).toBe(
      'INVALID_STIX_OBJECT',
    )
    expect(await code(validateStix(engine, { bundle: bundleWith(100_000) }))).toBe('INVALID_STIX_OBJECT')
    expect(await code(importStix(engine, { bundle: bundleWith(100_000) }))).toBe('INVALID_STIX_OBJECT')
  })
})

describe('vocabulary fields as properties', () => {
  it('keeps indicator_types and pattern_type flat, so a grouped count reads properties', async () => {
    const engine = await openEngine()
    try {
      const indicator = (n: number, types: string[]) => ({
        type: 'indicator',
        spec_version: '2.1',
        id: id('indicator', 10 + n),
        created: T,
        modified: T,
        name: `ip ${n}`,
        pattern: `[ipv4-addr:value = '10.0.0.${n}']`,
        pattern_type: 'stix',
        valid_from: T,
        indicator_types: types,
      })
      await importStix(engine, {
        bundle: bundle(
          indicator(1, ['malicious-activity']),
          indicator(2, ['malicious-activity']),
          indicator(3, ['anomalous-activity', 'attribution']),
        ),
      })
      const grouped = await engine.read(
        'MATCH (i:Indicator) UNWIND i.indicator_types AS t RETURN t, count(*) AS n ORDER BY t',
      )
      expect(grouped.data?.rows).toEqual([
        ['anomalous-activity', 1],
        ['attribution', 1],
        ['malicious-activity', 2],
      ])
      const byType = await engine.read('MATCH (i:Indicator) RETURN i.pattern_type AS p, count(*) AS n')
      expect(byType.data?.rows).toEqual([['stix', 3]])
      // A new version without the field drops it.
      const { indicator_types: _gone, ...rest } = indicator(1, [])
      await importStix(engine, { bundle: bundle({ ...rest, modified: '2024-02-02T03:04:05.000Z' }) })
      const left = await engine.read("MATCH (i:Indicator {name: 'ip 1'}) RETURN i.indicator_types AS t")
      expect(left.data?.rows).toEqual([[null]])
    } finally {
      await engine.close()
    }
  })
})

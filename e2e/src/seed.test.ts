import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './harness.js'

interface Candidate {
  node_id: string
  score: number
  explanation: { rationale: string; source_refs: string[]; boundary_notes: string[] }
}
/** Either envelope: tests read `result` on success and `error` on refusal. */
interface Answer {
  ok: boolean
  result: { candidates: Candidate[] }
  error: { code: string; message: string }
}

const SEED = `CREATE
  (:Malware {name: 'Industroyer', description: 'modular malware that attacked the Ukrainian power grid substations', confidence: 0.9, evidence_refs: ['report--1']}),
  (:Malware {name: 'Stuxnet', description: 'worm that sabotaged uranium enrichment centrifuges'}),
  (:ThreatActor {name: 'Sandworm', description: 'actor behind attacks on electric utilities'}),
  (:Tool {name: 'Mimikatz', description: 'credential dumping utility'}),
  (:Tool {name: 'Twin A', description: 'identical twin entry'}),
  (:Tool {name: 'Twin B', description: 'identical twin entry'})`

describe('seed search over HTTP', () => {
  let server: RunningServer
  const search = (body: Record<string, unknown>) => server.request<Answer>('/v1/seed/search', { body })

  beforeAll(async () => {
    server = await startServer()
    expect((await server.request('/v1/cypher/write', { body: { query: SEED } })).status).toBe(200)
    // Enough near-identical nodes to make a generic word overbroad (more than top_k * 10 matches).
    await server.request('/v1/cypher/write', {
      body: { query: "UNWIND range(1, 30) AS i CREATE (:Note {text: 'generic observation ' + toString(i)})" },
    })
  })
  afterAll(async () => {
    await server.stop()
  })

  it('ranks full-text candidates with explanations and provenance', async () => {
    const res = await search({ objective: 'power grid substations malware', mode: 'full_text' })
    expect(res.status).toBe(200)
    const [first] = res.json.result.candidates
    expect(first!.node_id).toMatch(/^node--\d+$/)
    expect(first!.explanation.source_refs).toEqual(['report--1'])
    expect(first!.explanation.rationale).toContain('matched terms')
    const scores = res.json.result.candidates.map((c) => c.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
  })

  it('a STIX import gives candidates display fields and the record id as provenance', async () => {
    const technique = {
      type: 'attack-pattern',
      spec_version: '2.1',
      id: 'attack-pattern--0d6e5a2b-9a3a-4a4e-8c7e-1f1a2b3c4d5e',
      created: '2024-01-01T00:00:00.000Z',
      modified: '2024-01-01T00:00:00.000Z',
      name: 'Spoof Reporting Message',
      description: 'Adversaries may spoof reporting messages in control system environments.',
      x_mitre_aliases: ['Fake Telemetry'],
      external_references: [{ source_name: 'mitre-ics-attack', external_id: 'T0856' }],
    }
    const bundle = {
      type: 'bundle',
      id: 'bundle--1b2c3d4e-0000-4000-8000-000000000001',
      objects: [technique],
    }
    expect((await server.request('/v1/import/stix', { body: { bundle } })).status).toBe(200)
    for (const objective of ['spoofed reports', 'fake telemetry', 'T0856', technique.id]) {
      const res = await search({ objective, top_k: 1 })
      expect(res.status, objective).toBe(200)
      const [c] = res.json.result.candidates as (Candidate & { labels: string[]; title: string })[]
      expect(c!.title).toBe('Spoof Reporting Message')
      expect(c!.labels).toContain('StixObject')
      expect(c!.explanation.source_refs).toEqual([technique.id])
    }
  })

  it('hybrid is the default and combines lexical and graph signals', async () => {
    const res = await search({ objective: 'credential dumping' })
    expect(res.status).toBe(200)
    expect(res.json.result.candidates[0]!.explanation.rationale).toMatch(/hybrid/)
  })

  it('is deterministic', async () => {
    const a = await search({ objective: 'uranium centrifuges worm' })
    const b = await search({ objective: 'uranium centrifuges worm' })
    expect(a.text).toBe(b.text)
  })

  it('sees a write at once', async () => {
    expect((await search({ objective: 'zerologon exploit' })).json.error.code).toBe('NO_SEED')
    await server.request('/v1/cypher/write', {
      body: { query: "CREATE (:Vulnerability {name: 'Zerologon', description: 'netlogon exploit'})" },
    })
    const after = await search({ objective: 'zerologon exploit' })
    expect(after.status).toBe(200)
    expect(after.json.result.candidates).toHaveLength(1)
  })

  it('applies top_k and score_threshold at their edges', async () => {
    expect(
      (await search({ objective: 'twin entry', top_k: 2, mode: 'full_text' })).json.result.candidates,
    ).toHaveLength(2)
    const one = await search({ objective: 'Industroyer', top_k: 1 })
    expect(one.json.result.candidates).toHaveLength(1)
    const score = one.json.result.candidates[0]!.score
    expect((await search({ objective: 'Industroyer', score_threshold: score })).status).toBe(200)
    expect(
      (await search({ objective: 'Industroyer', score_threshold: Math.min(1, score + 0.0001) })).json.error
        .code,
    ).toBe('NO_SEED')
    for (const threshold of [0, 1])
      expect((await search({ objective: 'Industroyer', score_threshold: threshold })).status).not.toBe(400)
  })

  it.each([
    [{ objective: '   ' }, 400, 'INVALID_SEED_REQUEST'],
    [{ objective: 'x', top_k: 0 }, 400, 'INVALID_SEED_REQUEST'],
    [{ objective: 'x', score_threshold: -0.01 }, 400, 'INVALID_SEED_REQUEST'],
    [{ objective: 'x', score_threshold: 1.01 }, 400, 'INVALID_SEED_REQUEST'],
    [{ objective: 'x', mode: 'fuzzy' }, 400, 'INVALID_RETRIEVAL_MODE'],
    [{ objective: 'x', domain_profile: 'finance' }, 400, 'INVALID_DOMAIN_PROFILE'],
    [{ objective: 'x', workspace_id: ' ' }, 400, 'INVALID_WORKSPACE_ID'],
    [{ objective: 'the and of' }, 422, 'OVERBROAD_OBJECTIVE'],
    [{ objective: 'generic observation', top_k: 2 }, 422, 'OVERBROAD_OBJECTIVE'],
    [{ objective: 'twin entry', top_k: 1, mode: 'full_text' }, 422, 'AMBIGUOUS_SEED'],
    [{ objective: 'quantum blockchain' }, 422, 'NO_SEED'],
    [{ objective: 'Industroyer', domain_profile: 'cti' }, 403, 'LICENSE_MODULE_MISSING'],
    [{ objective: 'Industroyer', mode: 'semantic' }, 503, 'SEMANTIC_PROVIDER_UNAVAILABLE'],
    [{ objective: 'Industroyer', mode: 'vector' }, 503, 'SEMANTIC_PROVIDER_UNAVAILABLE'],
  ] as const)('%j answers %i %s', async (body, status, code) => {
    const res = await search(body)
    expect(res.status).toBe(status)
    expect(res.json.error.code).toBe(code)
    if (status === 422) expect(res.json.error.message).toMatch(/\(fix: .+\)/)
  })

  it('accepts the reference aliases and the cross-domain profile', async () => {
    for (const mode of ['fulltext', 'full-text', 'FULL_TEXT']) {
      expect((await search({ objective: 'Industroyer', mode })).status).toBe(200)
    }
    expect((await search({ objective: 'Industroyer', domain_profile: 'cross-domain' })).status).toBe(200)
  })
})

describe('seed search across a restart', () => {
  it('rebuilds its index from the recovered graph', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'seed-')), 'graph')
    const env = { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: dir }
    const first = await startServer({ env })
    await first.request('/v1/cypher/write', { body: { query: "CREATE (:Malware {name: 'BlackEnergy'})" } })
    const before = await first.request('/v1/seed/search', { body: { objective: 'BlackEnergy' } })
    await first.kill()
    const second = await startServer({ env })
    try {
      const after = await second.request('/v1/seed/search', { body: { objective: 'BlackEnergy' } })
      expect(after.status).toBe(200)
      expect(after.text).toBe(before.text)
    } finally {
      await second.stop()
    }
  })
})

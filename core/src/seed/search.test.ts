import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../engine/engine.js'
import { isEngineError } from '../errors.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import type { PropertyValue } from '../graph/types.js'
import { lexicalScore } from './bm25-index.js'
import { HashedNgramProvider } from './embeddings/hashed-ngrams.js'
import type { EmbeddingProvider } from './embeddings/provider.js'
import { SeedSearch } from './search.js'

let engine: Engine
afterEach(async () => engine?.close())

async function create(
  nodes: { labels: string[]; props: Record<string, PropertyValue> }[],
  workspace = DEFAULT_WORKSPACE_ID,
): Promise<number[]> {
  const { value } = await engine.transact(workspace, (tx, store) =>
    nodes.map((n) =>
      tx.createNode(
        n.labels.map((l) => store.names.id(l)),
        new Map(Object.entries(n.props).map(([k, v]) => [store.names.id(k), v])),
      ),
    ),
  )
  return value
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
    return 'ok'
  } catch (e) {
    return isEngineError(e) ? `${e.category}:${e.code}` : String(e)
  }
}

/** An async-only provider (as the HTTP one is): texts are queued and flushed before dense searches. */
const asyncOnly = (inner: EmbeddingProvider): EmbeddingProvider => ({
  id: 'test:async',
  dimensions: inner.dimensions,
  embed: (texts) => inner.embed(texts),
})

describe('SeedSearch', () => {
  it('full_text scores are FACTS BM25 over labels and string properties', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    const [a, b] = await create([
      { labels: ['Tool'], props: { name: 'modbus scanner', port: 502n } },
      { labels: ['Tool'], props: { name: 'firmware', aliases: ['modbus', 'flasher'] } },
      { labels: ['Report'], props: { name: 'weather' } },
    ])
    const { candidates } = await seed.search({ objective: 'find the Modbus tools', mode: 'full_text' })
    // Docs: [tool modbus scanner] len 3, [tool firmware modbus flasher] len 4, [report weather] len 2.
    // avgdl 3, N 3. modbus df 2 -> idf ln(1.6); tool df 2 -> ln(1.6); "tools" matches nothing.
    const idf = Math.log(1.6)
    const tf1 = (len: number) => 2.2 / (1 + 1.2 * (0.25 + (0.75 * len) / 3))
    expect(candidates.map((c) => c.node_id)).toEqual([`node--${a}`, `node--${b}`])
    expect(candidates[0]?.score).toBeCloseTo(lexicalScore(idf * tf1(3)), 12)
    expect(candidates[1]?.score).toBeCloseTo(lexicalScore(idf * tf1(4)), 12)
    expect(candidates[0]?.explanation.rationale).toContain('matched terms: modbus')
  })

  it('hybrid adds degree, confidence and status; source_refs are evidence_refs', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    const [a, b] = await create([
      {
        labels: ['Claim'],
        props: { text: 'plc', confidence: 0.9, status: 'validated', evidence_refs: ['ev-1'] },
      },
      { labels: ['Claim'], props: { text: 'plc', status: 'rejected' } },
    ])
    await engine.write(`MATCH (n) WHERE elementId(n) = $id CREATE (n)-[:R]->(:X {name: 'pump station'})`, {
      id: `node--${a}`,
    })
    const { candidates } = await seed.search({ objective: 'plc' })
    expect(candidates.map((c) => c.node_id)).toEqual([`node--${a}`]) // rejected is never a seed
    // Searchable docs: [claim plc validated ev] (len 4) and [pump station] (len 2): N 2, avgdl 3, df 1.
    const lex = lexicalScore(Math.log(2) * (2.2 / (1 + 1.2 * (0.25 + (0.75 * 4) / 3))))
    expect(candidates[0]?.score).toBeCloseTo(0.7 * lex + 0.15 * 1 + 0.1 * 0.9 + 0.05 * 1, 9)
    expect(candidates[0]?.explanation.source_refs).toEqual(['ev-1'])
    expect(candidates[0]?.explanation.boundary_notes.join(' ')).toContain('lexical and graph signals only')
    expect(b).toBeGreaterThan(0)
  })

  it('results change right after a write, and 422s at their edges', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    expect(await codeOf(seed.search({ objective: 'list all of the' }))).toBe(
      'unprocessable:OVERBROAD_OBJECTIVE',
    )
    expect(await codeOf(seed.search({ objective: 'turbine' }))).toBe('unprocessable:NO_SEED')
    const ids = await create(
      Array.from({ length: 11 }, (_, i) => ({ labels: ['T'], props: { name: `turbine ${i}` } })),
    )
    // 11 equal scores > top_k x 10 with top_k 1 -> overbroad; top_k 2 -> 11 <= 20 but tie at the cut.
    expect(await codeOf(seed.search({ objective: 'turbine', top_k: 1 }))).toBe(
      'unprocessable:OVERBROAD_OBJECTIVE',
    )
    expect(await codeOf(seed.search({ objective: 'turbine', top_k: 2 }))).toBe('unprocessable:AMBIGUOUS_SEED')
    expect((await seed.search({ objective: 'turbine', top_k: 11 })).candidates).toHaveLength(11)
    await engine.transact(DEFAULT_WORKSPACE_ID, (tx) => {
      for (const id of ids.slice(1)) tx.deleteNode(id)
    })
    const { candidates } = await seed.search({ objective: 'turbine', top_k: 1 })
    expect(candidates.map((c) => c.node_id)).toEqual([`node--${ids[0]}`])
    const score = candidates[0]?.score as number
    expect((await seed.search({ objective: 'turbine', score_threshold: score })).candidates).toHaveLength(1)
    expect(await codeOf(seed.search({ objective: 'turbine', score_threshold: score + 1e-12 }))).toBe(
      'unprocessable:NO_SEED',
    )
  })

  it('semantic and vector need a provider (503), then use it once it arrives', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    const [a] = await create([
      { labels: ['Technique'], props: { name: 'spearphishing attachment' } },
      { labels: ['Technique'], props: { name: 'brute force' } },
    ])
    expect(await codeOf(seed.search({ objective: 'phishing', mode: 'vector' }))).toBe(
      'unavailable:SEMANTIC_PROVIDER_UNAVAILABLE',
    )
    seed.embeddings.set(new HashedNgramProvider())
    await seed.embeddingsSettled()
    // "phishing" shares 3-grams with "spearphishing" only: dense retrieval finds what BM25 cannot.
    expect(await codeOf(seed.search({ objective: 'phishing', mode: 'full_text' }))).toBe(
      'unprocessable:NO_SEED',
    )
    const vector = await seed.search({ objective: 'phishing', mode: 'vector', top_k: 1 })
    expect(vector.candidates[0]?.node_id).toBe(`node--${a}`)
    const semantic = await seed.search({ objective: 'phishing', mode: 'semantic', top_k: 1 })
    expect(semantic.candidates[0]?.explanation.rationale).toMatch(/^semantic score .* dense .* degree/)
    expect(semantic.candidates[0]?.explanation.boundary_notes.join(' ')).toContain('local:hashed-3gram-64')
  })

  it('an async provider sees a write made just before the search; workspaces are separate', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    seed.embeddings.set(asyncOnly(new HashedNgramProvider()))
    const [a] = await create([{ labels: ['Place'], props: { name: 'reservoir pumping station' } }], 'ws-a')
    const r = await seed.search({ objective: 'pumping', mode: 'vector', workspace_id: 'ws-a', top_k: 1 })
    expect(r.candidates.map((c) => c.node_id)).toEqual([`node--${a}`])
    expect(await codeOf(seed.search({ objective: 'pumping', mode: 'full_text' }))).toBe(
      'unprocessable:NO_SEED',
    )
    const hybrid = await seed.search({ objective: 'pumping', workspace_id: 'ws-a' })
    expect(hybrid.candidates[0]?.explanation.rationale).toMatch(/lexical .* \+ dense /)
  })

  it('is deterministic and orders ties by node id', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    await create(Array.from({ length: 12 }, () => ({ labels: ['N'], props: { name: 'valve' } })))
    const one = await seed.search({ objective: 'valve', top_k: 12, mode: 'full_text' })
    const two = await seed.search({ objective: 'valve', top_k: 12, mode: 'full_text' })
    expect(two).toEqual(one)
    const ids = one.candidates.map((c) => c.node_id)
    expect(ids).toEqual([...ids].sort())
  })
})

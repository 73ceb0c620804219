import { afterEach, describe, expect, it } from 'vitest'
import { isEngineError } from '../errors.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import type { PropertyValue } from '../graph/types.js'
import { type Engine, openEngine } from '../runtime/index.js'
import { lexicalScore } from './bm25-index.js'
import { HashedNgramProvider } from './embeddings/hashed-ngrams.js'
import type { EmbeddingProvider } from './embeddings/provider.js'
import { boosterTerms, COMMON_WALK_POSTINGS, SeedSearch } from './search.js'

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
  it('full_text over descriptions alone is FACTS BM25 (BM25F with one field)', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    const [a, b] = await create([
      { labels: [], props: { description: 'modbus scanner tool', port: 502n } },
      { labels: [], props: { description: 'firmware flasher speaking modbus too' } },
      { labels: [], props: { description: 'weather' } },
    ])
    const { candidates } = await seed.search({ objective: 'find the Modbus', mode: 'full_text' })
    // Body lengths 3, 5, 1 -> avgdl 3, N 3; modbus df 2 -> idf ln(1.6).
    const idf = Math.log(1.6)
    const tf1 = (len: number) => 2.2 / (1 + 1.2 * (0.25 + (0.75 * len) / 3))
    expect(candidates.map((c) => c.node_id)).toEqual([`node--${a}`, `node--${b}`])
    expect(candidates[0]?.score).toBeCloseTo(lexicalScore(idf * tf1(3)), 12)
    expect(candidates[1]?.score).toBeCloseTo(lexicalScore(idf * tf1(5)), 12)
    expect(candidates[0]?.explanation.rationale).toContain('matched terms: modbus')
  })

  it('names and aliases outweigh descriptions; stems meet; ids match whole; phrases count', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    const [named, described, phrased, loose] = await create([
      { labels: ['Technique'], props: { name: 'Alarm Suppression', external_id: 'T0878' } },
      { labels: ['Technique'], props: { name: 'Other', description: 'suppression of an alarm' } },
      { labels: ['Note'], props: { description: 'they steal sms messages quietly' } },
      { labels: ['Note'], props: { description: 'messages of sms kind, stealing' } },
    ])
    const first = async (objective: string) =>
      (await seed.search({ objective, mode: 'full_text', top_k: 1 })).candidates[0]
    expect((await first('alarms suppressed'))?.node_id).toBe(`node--${named}`)
    expect((await first('T0878'))?.node_id).toBe(`node--${named}`)
    expect((await first('(t0878),'))?.explanation.rationale).toMatch(/exact id 12\.0000/)
    // Both notes hold the same words; only one has "sms messages" side by side.
    const ranked = await seed.search({ objective: 'stealing SMS messages', mode: 'full_text' })
    expect(ranked.candidates.map((c) => c.node_id).slice(0, 2)).toEqual([
      `node--${phrased}`,
      `node--${loose}`,
    ])
    expect(ranked.candidates[0]?.explanation.rationale).toMatch(/phrase 0\.[0-9]*[1-9]/)
    expect(described).toBeGreaterThan(0)
  })

  it('candidates carry labels, a title and the stix id as provenance', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    const raw = JSON.stringify({
      x_mitre_aliases: ['TRISIS'],
      external_references: [{ source_name: 'mitre-attack', external_id: 'S1009' }],
    })
    const [a] = await create([
      {
        labels: ['StixObject', 'Malware'],
        props: { name: 'Triton', stix_id: 'malware--1', stix_raw: raw, evidence_refs: ['ev-2'] },
      },
    ])
    const [c] = (await seed.search({ objective: 'TRISIS' })).candidates
    const [other] = await create([{ labels: ['Note'], props: { aliases: ['Ziggurat'], name: 'Tower' } }])
    expect((await seed.search({ objective: 'ziggurat' })).candidates[0]).toMatchObject({
      node_id: `node--${other}`,
      title: 'Tower',
    })
    expect(c).toMatchObject({ node_id: `node--${a}`, labels: ['StixObject', 'Malware'], title: 'Triton' })
    expect(c?.explanation.source_refs).toEqual(['ev-2', 'malware--1'])
    expect((await seed.search({ objective: 'malware--1' })).candidates[0]?.node_id).toBe(`node--${a}`)
    expect((await seed.search({ objective: 'S1009' })).candidates[0]?.node_id).toBe(`node--${a}`)
    // The raw JSON itself is not text: its keys are not words of the node.
    expect(await codeOf(seed.search({ objective: 'external_references' }))).toBe('unprocessable:NO_SEED')
    // A revoked or deprecated STIX object stays in the graph but is never a seed.
    await create([
      { labels: ['Malware'], props: { name: 'Trisis', stix_raw: JSON.stringify({ revoked: true }) } },
    ])
    await create([
      { labels: ['Malware'], props: { name: 'Hatman', stix_raw: '{"x_mitre_deprecated":true}' } },
    ])
    expect((await seed.search({ objective: 'trisis' })).candidates.map((c) => c.node_id)).toEqual([
      `node--${a}`,
    ])
    expect(await codeOf(seed.search({ objective: 'hatman' }))).toBe('unprocessable:NO_SEED')
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
    // Searchable docs: body [plc] (len 1) and body [] : N 2, body avgdl 0.5, df 1 -> idf ln 2.
    const w = 1 / (0.25 + (0.75 * 1) / 0.5)
    const lex = lexicalScore((Math.log(2) * (w * 2.2)) / (w + 1.2))
    expect(candidates[0]?.score).toBeCloseTo(0.75 * lex + 0.1 * 1 + 0.1 * 0.9 + 0.05 * 1, 9)
    expect(candidates[0]?.explanation.source_refs).toEqual(['ev-1'])
    expect(candidates[0]?.explanation.boundary_notes.join(' ')).toContain('lexical and graph signals only')
    expect(b).toBeGreaterThan(0)
  })

  it('OVERBROAD only when every term is common; one discriminating term is answered', async () => {
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    // 30 nodes say "device attack"; one also says "firmware". Common: df 30 > max(top_k x 10, 15% of 31).
    await create(
      Array.from({ length: 30 }, (_, i) => ({
        labels: ['N'],
        props: { description: i === 0 ? 'device attack on firmware' : `device attack ${i}` },
      })),
    )
    expect(await codeOf(seed.search({ objective: 'how do they attack a device', top_k: 2 }))).toBe(
      'unprocessable:OVERBROAD_OBJECTIVE',
    )
    // top_k 3: 30 is not above top_k x 10 = 30, so the terms are not common there and the ranking
    // decides: nine equal shortest nodes ("device attack 1".."9") lead it, a tie across the cut.
    expect(await codeOf(seed.search({ objective: 'device attack', top_k: 3 }))).toBe(
      'unprocessable:AMBIGUOUS_SEED',
    )
    // Common terms are scored in full while their postings are few: the node with all three words first,
    // then the ones with the two common words.
    const answered = await seed.search({ objective: 'device attack firmware', top_k: 2 })
    expect(answered.candidates).toHaveLength(2)
    expect(answered.candidates[0]?.explanation.rationale).toContain('matched terms: device, attack, firmware')
    expect(answered.candidates[1]?.explanation.rationale).toContain('matched terms: device, attack')
  })

  it('common terms only rank what rarer terms found once their postings exceed COMMON_WALK_POSTINGS', async () => {
    expect(boosterTerms([{ term: 'rare', df: 3 }], 10)).toEqual(new Set())
    const common = [
      { term: 'device', df: COMMON_WALK_POSTINGS / 2 },
      { term: 'attack', df: COMMON_WALK_POSTINGS / 2 },
      { term: 'rare', df: 3 },
    ]
    expect(boosterTerms(common, 100)).toEqual(new Set())
    common[0] = { term: 'device', df: COMMON_WALK_POSTINGS / 2 + 1 }
    expect(boosterTerms(common, 100)).toEqual(new Set(['device', 'attack']))
    // Through the engine: 10,001 nodes say "device attack" (20,002 postings), one of them "firmware" too.
    engine = await openEngine()
    const seed = SeedSearch.attach(engine)
    const count = COMMON_WALK_POSTINGS / 2 + 1
    await create(
      Array.from({ length: count }, (_, i) => ({
        labels: ['N'],
        props: { description: i === 0 ? 'device attack on firmware' : 'device attack' },
      })),
    )
    const boosted = await seed.search({ objective: 'device attack firmware', top_k: 2 })
    expect(boosted.candidates).toHaveLength(1)
    expect(boosted.candidates[0]?.explanation.rationale).toContain('matched terms: device, attack, firmware')
  })

  it('indexes lazily: a graph made before attach, property changes and deletes are all seen by the next search', async () => {
    engine = await openEngine()
    const ids = await create(
      Array.from({ length: 30 }, (_, i) => ({
        labels: ['Tool'],
        props: { name: `pump ${i}`, n: BigInt(i) },
      })),
    )
    const seed = SeedSearch.attach(engine)
    // No warm-up awaited: the search catches up by itself.
    expect((await seed.search({ objective: 'pump', top_k: 30 })).candidates).toHaveLength(30)
    await seed.warm()
    expect(seed.staleNodes()).toBe(0)
    expect(seed.stats().documents).toBe(30)
    await engine.transact(DEFAULT_WORKSPACE_ID, (tx, store) => {
      tx.setNodeProperty(ids[0] as number, store.names.id('name'), 'valve')
      tx.deleteNode(ids[1] as number)
    })
    expect((await seed.search({ objective: 'pump', top_k: 30 })).candidates).toHaveLength(28)
    const valve = await seed.search({ objective: 'valve', top_k: 1 })
    expect(valve.candidates.map((c) => c.node_id)).toEqual([`node--${ids[0]}`])
    expect(seed.stats().documents).toBe(29)
  })

  it('reports its background backlog: nodes to index, then nodes to embed once a provider arrives', async () => {
    engine = await openEngine()
    const seed = engine.seed
    await seed.warm()
    await create(Array.from({ length: 40 }, (_, i) => ({ labels: ['Tool'], props: { name: `drill ${i}` } })))
    expect(seed.backlog()).toEqual({ index: 40, embeddings: 0 })
    await seed.warm()
    expect(seed.backlog()).toEqual({ index: 0, embeddings: 0 })
    // A provider arriving re-embeds every indexed node in slices; the first slice runs at once.
    seed.embeddings.set(new HashedNgramProvider(16))
    const left = seed.backlog().embeddings
    expect(left).toBeGreaterThanOrEqual(0)
    expect(left).toBeLessThan(40)
    await seed.embeddingsSettled()
    expect(seed.backlog()).toEqual({ index: 0, embeddings: 0 })
    expect(seed.stats().vectors).toBe(40)
  })

  it('a provider arriving before the index caught up leaves indexing to the background, which embeds too', async () => {
    engine = await openEngine()
    const seed = engine.seed
    await seed.warm()
    await create(Array.from({ length: 40 }, (_, i) => ({ labels: ['Tool'], props: { name: `lathe ${i}` } })))
    seed.embeddings.set(new HashedNgramProvider(16))
    // Nothing was indexed inside the provider's arrival (on a big store that held the event loop for the
    // whole rebuild); the background pass indexes and embeds with the new provider.
    expect(seed.backlog().index).toBe(40)
    await seed.warm()
    await seed.embeddingsSettled()
    expect(seed.backlog()).toEqual({ index: 0, embeddings: 0 })
    expect(seed.stats().vectors).toBe(40)
    const vector = await seed.search({ objective: 'lathe 7', mode: 'vector', top_k: 40 })
    expect(vector.candidates).toHaveLength(40)
  })
  it('warm() indexes what writes left stale, also when it last ran with nothing to do', async () => {
    engine = await openEngine()
    const seed = engine.seed // attached to an empty engine: its first warm-up had nothing to do
    await seed.warm()
    await create(Array.from({ length: 25 }, (_, i) => ({ labels: ['Tool'], props: { name: `gauge ${i}` } })))
    expect(seed.staleNodes()).toBe(25)
    await seed.warm()
    expect(seed.staleNodes()).toBe(0)
    // Past 50,000 stale nodes a background pass starts by itself.
    await engine.transact(DEFAULT_WORKSPACE_ID, (tx, store) => {
      const label = [store.names.id('Bulk')]
      for (let i = 0; i < 50_000; i++) tx.createNode(label, new Map())
    })
    // (on later turns, not inside the commit that crossed the mark: the write is answered first)
    expect(seed.staleNodes()).toBe(50_000)
    // (it gives way to writes for a short pause first: see write-pressure.ts)
    for (let turn = 0; turn < 500 && seed.staleNodes() > 0; turn++)
      await new Promise((r) => setTimeout(r, 10))
    expect(seed.staleNodes()).toBe(0)
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

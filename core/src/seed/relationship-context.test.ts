import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { context, inner, memoryInput, op } from '../testing/memory-requests.js'
import { CONTEXT_MAX_CHARS } from './node-text.js'

let engine: Engine
afterEach(async () => engine?.close())

const found = async (objective: string) =>
  (await engine.seed.search({ objective, mode: 'full_text', top_k: 5 })).candidates.map((c) => c.title)

const noSeed = async (objective: string) =>
  engine.seed.search({ objective, mode: 'full_text', top_k: 5 }).then(
    () => 'answered',
    (e: { code?: string }) => e.code,
  )

describe('seed search reads what relationships say of their ends (the context field)', () => {
  it('finds both ends by words only a relationship description has, and follows its changes', async () => {
    engine = await openEngine()
    await engine.write(
      `CREATE (g:Group {name: 'Harbour Crew', description: 'a financially motivated group'}),
              (s:Tool {name: 'Lantern', description: 'a backdoor'}),
              (o:Tool {name: 'Other', description: 'unrelated'}),
              (g)-[:USES {description: '[Harbour Crew](https://example.test/g) deployed Lantern against hospitals (Citation: Report 2020)'}]->(s)`,
    )
    // Both ends, ranked by their own text first; the link text counts, its address and the citation do not.
    expect(await found('hospitals')).toEqual(['Harbour Crew', 'Lantern'])
    expect(await noSeed('example')).toBe('NO_SEED')
    expect(await noSeed('citation')).toBe('NO_SEED')
    const [hit] = (await engine.seed.search({ objective: 'hospitals', mode: 'full_text', top_k: 2 }))
      .candidates
    const parts = hit?.explanation.rationale.match(/description ([\d.]+) \+ relationships ([\d.]+)/)
    expect(Number(parts?.[1])).toBe(0)
    expect(Number(parts?.[2])).toBeGreaterThan(0)
    // The description changes: both ends are re-indexed at the next search.
    await engine.write(`MATCH (:Group)-[r:USES]->(:Tool) SET r.description = 'used against pipelines'`)
    expect(await noSeed('hospitals')).toBe('NO_SEED')
    expect(await found('pipelines')).toEqual(['Harbour Crew', 'Lantern'])
    // A new relationship with a text adds to the context; one without a text leaves it as it was.
    await engine.write(
      `MATCH (o:Tool {name: 'Other'}), (s:Tool {name: 'Lantern'})
       CREATE (o)-[:DROPS {description: 'drops Lantern on shipyards'}]->(s), (o)-[:NEAR]->(s)`,
    )
    expect((await found('shipyards')).sort()).toEqual(['Lantern', 'Other'])
    // Removing the text, then deleting the relationship, takes its words out of both ends.
    await engine.write(`MATCH ()-[r:DROPS]->() REMOVE r.description`)
    expect(await noSeed('shipyards')).toBe('NO_SEED')
    await engine.write(`MATCH ()-[r:USES]->() DELETE r`)
    expect(await noSeed('pipelines')).toBe('NO_SEED')
    expect(await found('backdoor')).toEqual(['Lantern'])
  })

  it('counts phrases in what a relationship says of its ends', async () => {
    engine = await openEngine()
    await engine.write(
      `CREATE (g:Group {name: 'Harbour Crew'}), (s:Tool {name: 'Lantern'}),
              (o:Tool {name: 'Other', description: 'apps of many kinds, and once some software got installed'}),
              (g)-[:USES {description: 'Harbour Crew used Lantern to list installed apps'}]->(s)`,
    )
    const { candidates } = await engine.seed.search({
      objective: 'installed apps',
      mode: 'full_text',
      top_k: 3,
    })
    const phrase = (title: string) =>
      Number(candidates.find((c) => c.title === title)?.explanation.rationale.match(/phrase ([\d.]+)/)?.[1])
    // Both ends have "installed apps" side by side in their context; Other has the words far apart.
    expect(phrase('Lantern')).toBeGreaterThan(0)
    expect(phrase('Harbour Crew')).toBe(phrase('Lantern'))
    expect(phrase('Other')).toBe(0)
  })

  it('reads at most CONTEXT_MAX_CHARS of a hub’s relationships', async () => {
    engine = await openEngine()
    const filler = 'x'.repeat(1000)
    const count = Math.ceil(CONTEXT_MAX_CHARS / 1000) + 2
    await engine.write(
      `CREATE (h:Hub {name: 'hub'})
       WITH h UNWIND range(1, $count) AS i
       CREATE (h)-[:LINK {description: CASE WHEN i = $count THEN 'lastword ' + $filler ELSE 'firstword ' + $filler END}]->(:Leaf {name: 'leaf ' + toString(i)})`,
      { count: BigInt(count), filler },
    )
    // The first relationships fill the hub's context; the last one's text reaches only its other end.
    expect((await found('firstword')).filter((t) => t === 'hub')).toEqual(['hub'])
    expect(await found('lastword')).toEqual([`leaf ${count}`])
  })

  it('reads the description a memory relationship carries in its properties', async () => {
    engine = await openEngine()
    const ctx = context()
    const remember = async (text: string) =>
      inner(await op(engine, ctx, 'remember', memoryInput(text))).record.id as string
    const group = await remember('Harbour Crew\na financially motivated group')
    const tool = await remember('Lantern\na backdoor')
    const search = (objective: string) =>
      engine.seed.search({ objective, mode: 'full_text', top_k: 5, workspace_id: ctx.workspace_id })
    await expect(search('shipyards')).rejects.toMatchObject({ code: 'NO_SEED' })
    await op(engine, ctx, 'relate', {
      source_id: group,
      target_id: tool,
      kind: 'uses',
      properties: { description: 'Harbour Crew drops Lantern on shipyards' },
      provenance: [{ source_id: 'ev-1' }],
      lifecycle: 'active',
    })
    // Both ends, found by words only the relationship says (the index follows the relate at once).
    const hits = await search('shipyards')
    expect(hits.candidates.map((c) => c.node_id).sort()).toEqual([group, tool].sort())
  })
})

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CypherEngine } from '../cypher/engine.js'
import { PayloadFile } from '../storage/payload-file.js'
import { GraphCatalog } from './catalog.js'
import { PayloadRef } from './payload-ref.js'
import { PropertyMap } from './property-map.js'

// Long values in the payload file behind a cache far smaller than the data: every query answers exactly as it
// does with every value resident (issue 39).

const MIN_CHARS = 64
const long = (tag: string, n: number) =>
  `${tag} ${n} ${'lorem ipsum dolor sit amet '.repeat(3 + (n % 5))}`.trim()

const SEED = `
UNWIND range(0, 59) AS i
CREATE (m:Malware {stix_id: 'malware--' + i, name: 'family ' + (i % 6), description: $long[i],
                   raw: $raw[i], tags: ['a', 'b'], confidence: i / 10.0})
WITH m, i
MATCH (n:Malware) WHERE n.stix_id = 'malware--' + ((i + 7) % (i + 1))
CREATE (m)-[:Uses {raw: $raw[(i + 1) % 60], note: 'short', weight: i}]->(n)`

const QUERIES = [
  `MATCH (m:Malware {stix_id: 'malware--17'}) RETURN m.description, m.raw, m.name`,
  `MATCH (m:Malware) WHERE m.description CONTAINS 'ipsum' RETURN count(m)`,
  `MATCH (m:Malware) RETURN m.description ORDER BY m.description DESC LIMIT 5`,
  `MATCH (m:Malware) RETURN m.name, count(*), min(size(m.description)) ORDER BY m.name`,
  `MATCH (m:Malware) RETURN m.raw AS raw, count(*) AS c ORDER BY raw LIMIT 3`,
  `MATCH (m:Malware {description: $long[3]}) RETURN m.stix_id`,
  `MATCH (a)-[r:Uses]->(b) RETURN a.stix_id, r.raw, r.note, b.description ORDER BY a.stix_id LIMIT 10`,
  `MATCH (a:Malware {stix_id: 'malware--40'})-[:Uses]->()<-[:Uses]-(c) RETURN c.stix_id, c.raw ORDER BY c.stix_id`,
  `MATCH (m:Malware {stix_id: 'malware--5'}) RETURN properties(m), keys(m)`,
  `MATCH ()-[r:Uses]->() WHERE r.weight = 9 RETURN properties(r)`,
  `MATCH (m:Malware) RETURN collect(m.description)[0..3]`,
]

const WRITES = [
  `MATCH (m:Malware {stix_id: 'malware--17'}) SET m.extra = 'x' RETURN m.description, m.extra`,
  `MATCH (m:Malware {stix_id: 'malware--18'}) SET m.description = 'replaced' RETURN m.description, m.raw`,
  `MATCH (m:Malware {stix_id: 'malware--19'}) REMOVE m.raw RETURN keys(m), m.description`,
  `MATCH ()-[r:Uses {weight: 3}]->() SET r.note = 'changed' RETURN r.raw, r.note`,
  `MATCH (m:Malware {stix_id: 'malware--20'}) DETACH DELETE m`,
  `MATCH (m:Malware) RETURN m.stix_id, m.description, m.raw ORDER BY m.stix_id`,
  `MATCH (a)-[r:Uses]->(b) RETURN a.stix_id, r.raw, r.note ORDER BY a.stix_id, b.stix_id`,
]

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payload-values-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const params = {
  long: Array.from({ length: 60 }, (_, i) => long('description', i)),
  raw: Array.from({ length: 60 }, (_, i) =>
    JSON.stringify({ type: 'malware', id: `malware--${i}`, body: long('raw', i) }),
  ),
}

async function seeded(): Promise<{ engine: CypherEngine; catalog: GraphCatalog }> {
  const catalog = new GraphCatalog()
  const engine = new CypherEngine(catalog)
  const result = await engine.run({ query: SEED, params, mode: 'write' })
  expect(result.status, JSON.stringify(result.validation_errors)).toBe('Success')
  return { engine, catalog }
}

async function answer(engine: CypherEngine, query: string) {
  const result = await engine.run({ query, params, mode: 'auto' })
  expect(result.status, `${query}: ${JSON.stringify(result.validation_errors)}`).toBe('Success')
  return result.data
}

describe('long values in the payload file', () => {
  it('answer every query and write as resident values do, through a cache far smaller than the data', async () => {
    const resident = await seeded()
    const paged = await seeded()
    const { file } = PayloadFile.open(join(dir, 'payloads.bin'), { cacheBytes: 256 })
    const moved = paged.catalog.workspace().externalize(MIN_CHARS, file)
    // Every description and raw of the 60 nodes, and the raw of every relationship.
    const rels = resident.catalog.workspace().relCount()
    expect(moved).toBe(120 + rels)
    expect(file.size).toBeGreaterThan(60 * 2 * MIN_CHARS)

    for (const query of [...QUERIES, ...WRITES])
      expect(await answer(paged.engine, query), query).toEqual(await answer(resident.engine, query))
    const stats = file.cacheStats()
    expect(stats.bytes).toBeLessThanOrEqual(256)
    expect(stats.misses).toBeGreaterThan(100)
    file.close()
  })

  it('keep references unread when a node is copied for a write, and resolve them for every reader', async () => {
    const { catalog } = await seeded()
    const store = catalog.workspace()
    const reads: number[] = []
    const texts: string[] = []
    const payloads = {
      append: (text: string) => ({ offset: texts.push(text) - 1, bytes: text.length }),
      read: ({ offset }: { offset: number }) => {
        reads.push(offset)
        return texts[offset] as string
      },
    }
    store.externalize(MIN_CHARS, payloads)
    const id = [...store.labelNodeIds(store.names.id('Malware'))][0] as number
    const props = store.node(id)?.props as PropertyMap
    const copy = PropertyMap.copyOf(props)
    expect([...copy.keys()].length).toBe(props.size)
    expect(reads).toEqual([]) // neither the copy nor listing keys read a payload
    const description = copy.get(store.names.id('description'))
    expect(description).toBe(long('description', 0))
    expect(reads.length).toBe(1)
    expect([...copy.values()].some((value) => value instanceof PayloadRef)).toBe(false)
  })
})

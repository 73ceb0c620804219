import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { CypherEngine } from '../engine.js'

const dir = mkdtempSync(join(tmpdir(), 'load-csv-batches-'))

/** A small deterministic generator: the same files on every run. */
function lcg(seed: number) {
  let s = seed >>> 0
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return Math.floor((s / 4294967296) * n)
  }
}

/** Endpoint and weight fields, with the odd one that finds no node, is empty, or (`0`) fails a division. */
function randomCsv(rand: (n: number) => number, rows: number, zeroes: boolean): string {
  const field = (n: number) => {
    const roll = rand(40)
    if (roll === 0) return 'x'
    if (roll === 1) return ''
    if (roll === 2) return ' 7'
    return String(rand(n))
  }
  const lines: string[] = []
  for (let i = 0; i < rows; i++) {
    const weight = rand(30) === 0 ? (zeroes ? '0' : '') : String(1 + rand(9))
    lines.push(`${field(24)},${field(24)},${weight}`)
  }
  return lines.join('\n')
}

// Endpoints keyed by integers, integral floats and one string: the seek must find what equality finds.
const SETUP = `UNWIND range(0, 19) AS i
  CREATE (:P {uid: CASE WHEN i % 5 = 0 THEN toFloat(i) ELSE i END, name: 'p' + i})
  WITH count(*) AS made CREATE (:P {uid: '7', name: 'text'}), (:Q {uid: 3, name: 'q'})`

const BODIES = [
  `MATCH (a:P {uid: toInteger(r[0])}), (b:P {uid: toInteger(r[1])})
   CREATE (a)-[:T {w: 100 / toInteger(r[2])}]->(b)`,
  `MERGE (a:P {uid: toInteger(r[0])}) MERGE (b:P {uid: coalesce(toInteger(r[1]), -1)})
   CREATE (a)-[:T {w: 100 / toInteger(r[2])}]->(b)`,
  `CREATE (:N {a: toInteger(r[0]), b: r[1], w: 100 / toInteger(r[2]), line: line})`,
]

async function engineWithSetup() {
  const engine = new CypherEngine(new GraphCatalog(), { csvImport: { importDir: dir } })
  await engine.run({ query: SETUP, mode: 'write' })
  return engine
}

/** What the engine holds: ids may differ between two loads, so a sorted list of what each row holds. */
async function dump(engine: CypherEngine) {
  const result = await engine.run({
    query:
      'MATCH (n) OPTIONAL MATCH (n)-[t]->(m) RETURN labels(n), properties(n), type(t), properties(t), m.name',
    mode: 'read',
  })
  expect(result.status, JSON.stringify(result.validation_errors)).toBe('Success')
  return result.data?.rows.map((row) => JSON.stringify(row)).sort()
}

type Summary = Record<string, number>
const add = (total: Summary, more: Summary) => {
  for (const [key, n] of Object.entries(more)) total[key] = (total[key] ?? 0) + n
}

/**
 * The reference: the body run for one row at a time, each row its own statement, from the same file (`line`
 * is each row's line number). Up to `rows` rows, or up to the first failing row.
 */
async function rowByRow(body: string, file: string, lines: number, rows = lines) {
  const engine = await engineWithSetup()
  const summary: Summary = {}
  for (let line = 1; line <= Math.min(rows, lines); line++) {
    const outcome = await engine.execute({
      query: `LOAD CSV FROM $file AS r WITH r, linenumber() AS line WHERE line = $line ${body}`,
      params: { file: `file:///${file}`, line },
      mode: 'write',
    })
    if (outcome.error)
      return { failedAt: line, error: { code: outcome.error.code, message: outcome.error.message }, summary }
    add(summary, outcome.result.mutation_summary as unknown as Summary)
  }
  return { failedAt: undefined, error: undefined, summary, graph: await dump(engine) }
}

async function batchedLoad(body: string, file: string, size: number) {
  const engine = await engineWithSetup()
  const outcome = await engine.execute({
    query: `LOAD CSV FROM $file AS r WITH r, linenumber() AS line CALL (r, line) { ${body} } IN TRANSACTIONS OF ${size} ROWS`,
    params: { file: `file:///${file}` },
    mode: 'write',
  })
  return {
    error: outcome.error && { code: outcome.error.code, message: outcome.error.message },
    summary: outcome.error ? undefined : (outcome.result.mutation_summary as unknown as Summary),
    graph: await dump(engine),
  }
}

describe('LOAD CSV … CALL { … } IN TRANSACTIONS against the same body run row by row', () => {
  it('gives the same graph, counters and first error; a failed load keeps the whole batches before it', async () => {
    const rand = lcg(11)
    let failures = 0
    for (let round = 0; round < 4; round++) {
      const file = `r${round}.csv`
      const lines = 60 + rand(60)
      writeFileSync(join(dir, file), randomCsv(rand, lines, round % 2 === 1))
      for (const body of BODIES) {
        const size = 1 + rand(25)
        const context = `round ${round}, ${size} rows a batch: ${body}`
        const reference = await rowByRow(body, file, lines)
        const batched = await batchedLoad(body, file, size)
        expect(batched.error, context).toEqual(reference.error)
        if (reference.failedAt === undefined) {
          expect(batched.summary, context).toEqual(reference.summary)
          expect(batched.graph, context).toEqual(reference.graph)
        } else {
          failures++
          const committed = Math.floor((reference.failedAt - 1) / size) * size
          expect(batched.graph, context).toEqual((await rowByRow(body, file, lines, committed)).graph)
        }
      }
    }
    expect(failures).toBeGreaterThan(1)
  })
})

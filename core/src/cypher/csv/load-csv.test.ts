import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GraphCatalog } from '../../graph/catalog.js'
import { CypherEngine, type CypherEngineOptions } from '../engine.js'
import { neo4jStatusCode } from '../neo4j-status.js'

const dir = mkdtempSync(join(tmpdir(), 'load-csv-'))
writeFileSync(join(dir, 'people.csv'), 'name,age,city\nAda,36,London\n"Smith, Jo",,"say ""hi"""\nBo,41\n')
writeFileSync(join(dir, 'plain.csv'), 'a,b\n"",c\n"multi\nline",d\n')
writeFileSync(join(dir, 'empties.csv'), '"",,"x"\r\na,,b,\r\n\r\n"two\nlines",,""\r\n;,"",;\r\n')
writeFileSync(join(dir, 'tabs.tsv'), 'x\ty\n1\t2\n')
writeFileSync(join(dir, 'broken.csv'), 'a,b\n"never closed,1\n')
writeFileSync(join(dir, 'people.csv.gz'), gzipSync('name\nAda\nBo\n'))
writeFileSync(join(dir, 'zipped.bin'), gzipSync('name\nCy\n'))
writeFileSync(join(dir, 'numbers.csv'), Array.from({ length: 2500 }, (_, i) => `${i}`).join('\n'))

function engine(options: CypherEngineOptions = {}) {
  return new CypherEngine(new GraphCatalog(), { csvImport: { importDir: dir }, ...options })
}

async function rows(e: CypherEngine, query: string, mode: 'auto' | 'read' = 'auto') {
  const result = await e.run({ query, mode })
  if (result.status !== 'Success')
    throw new Error(`${result.validation_errors[0]?.code}: ${result.validation_errors[0]?.message}`)
  return result.data?.rows
}

async function failure(e: CypherEngine, query: string) {
  const outcome = await e.execute({ query, mode: 'auto' })
  return { code: outcome.error?.code, message: outcome.error?.message }
}

describe('LOAD CSV', () => {
  it('reads rows as lists of strings; an unquoted empty field is null, a quoted one an empty string', async () => {
    expect(await rows(engine(), "LOAD CSV FROM 'file:///plain.csv' AS row RETURN row")).toEqual([
      [['a', 'b']],
      [['', 'c']],
      [['multi\nline', 'd']],
    ])
    expect(
      await rows(engine(), "LOAD CSV FROM 'file:///people.csv' AS row RETURN row[1] SKIP 2 LIMIT 1"),
    ).toEqual([[null]])
  })

  it('tells quoted from unquoted empty fields in any mix, with the line of each record', async () => {
    expect(
      await rows(engine(), "LOAD CSV FROM 'file:///empties.csv' AS row RETURN row, linenumber()"),
    ).toEqual([
      [['', null, 'x'], 1],
      [['a', null, 'b', null], 2],
      [['two\nlines', null, ''], 5],
      [[';', '', ';'], 6],
    ])
  })

  it('WITH HEADERS: maps by header; RFC 4180 quotes; a missing field is null', async () => {
    expect(
      await rows(
        engine(),
        "LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS p RETURN p.name, p.age, p.city, toInteger(p.age) + 1",
      ),
    ).toEqual([
      ['Ada', '36', 'London', 37],
      ['Smith, Jo', null, 'say "hi"', null],
      ['Bo', '41', null, 42],
    ])
  })

  it("FIELDTERMINATOR, '\\t' included", async () => {
    expect(
      await rows(engine(), "LOAD CSV FROM 'file:///tabs.tsv' AS r FIELDTERMINATOR '\\t' RETURN r"),
    ).toEqual([[['x', 'y']], [['1', '2']]])
    expect(
      (await failure(engine(), "LOAD CSV FROM 'file:///tabs.tsv' AS r FIELDTERMINATOR ';;' RETURN r")).code,
    ).toBe('INVALID_ARGUMENT_VALUE')
  })

  it('reads after other reads: each of their rows names a file', async () => {
    const e = engine()
    await e.run({ query: "CREATE (:Src {url: 'file:///tabs.tsv'})", mode: 'write' })
    expect(
      await rows(
        e,
        `UNWIND ['file:///tabs.tsv', 'file:///people.csv.gz'] AS f LOAD CSV FROM f AS r
         RETURN f, r[0], linenumber() ORDER BY f, linenumber()`,
      ),
    ).toEqual([
      ['file:///people.csv.gz', 'name', 1],
      ['file:///people.csv.gz', 'Ada', 2],
      ['file:///people.csv.gz', 'Bo', 3],
      ['file:///tabs.tsv', 'x\ty', 1],
      ['file:///tabs.tsv', '1\t2', 2],
    ])
    expect(
      await rows(e, "MATCH (s:Src) LOAD CSV FROM s.url AS r FIELDTERMINATOR '\t' RETURN s.url, r[1]"),
    ).toEqual([
      ['file:///tabs.tsv', 'y'],
      ['file:///tabs.tsv', '2'],
    ])
    const loaded = await e.run({
      query: `WITH $file AS f LOAD CSV FROM f AS r WITH r, f WHERE r[0] <> '0'
              CALL (r, f) { CREATE (:Line {n: r[0], from: f}) } IN TRANSACTIONS OF 1000 ROWS`,
      params: { file: 'file:///numbers.csv' },
      mode: 'write',
    })
    expect(loaded.mutation_summary.created_nodes).toBe(2499)
  })

  it('gunzips by the .gz name and by the magic bytes', async () => {
    expect(
      await rows(engine(), "LOAD CSV WITH HEADERS FROM 'file:///people.csv.gz' AS p RETURN p.name"),
    ).toEqual([['Ada'], ['Bo']])
    expect(
      await rows(engine(), "LOAD CSV WITH HEADERS FROM 'file:///zipped.bin' AS p RETURN p.name"),
    ).toEqual([['Cy']])
  })

  it('linenumber() and file() name the row being read; null outside LOAD CSV', async () => {
    expect(
      await rows(
        engine(),
        'LOAD CSV WITH HEADERS FROM $url AS p RETURN p.name, linenumber(), file()',
        'auto',
      ).catch((e: Error) => e.message),
    ).toContain('PARAMETER_MISSING')
    const e = engine()
    const result = await e.run({
      query: 'LOAD CSV WITH HEADERS FROM $url AS p RETURN p.name, linenumber(), file()',
      params: { url: 'file:///people.csv' },
      mode: 'auto',
    })
    expect(result.data?.rows).toEqual([
      ['Ada', 2, 'file:///people.csv'],
      ['Smith, Jo', 3, 'file:///people.csv'],
      ['Bo', 4, 'file:///people.csv'],
    ])
    expect(await rows(e, 'RETURN linenumber(), file()')).toEqual([[null, null]])
    const explained = await e.execute({
      query: "EXPLAIN LOAD CSV FROM 'file:///x.csv' AS r RETURN r",
      mode: 'auto',
    })
    expect(explained.explained?.operators.map((op) => op.operator)).toEqual(['LoadCSV', 'ProduceResults'])
  })

  it('is a read on the read-only door when it does not write; a write when it does', async () => {
    const e = engine()
    expect(await rows(e, "LOAD CSV FROM 'file:///numbers.csv' AS r RETURN count(*)", 'read')).toEqual([
      [2500],
    ])
    expect(await rows(e, "LOAD CSV FROM 'file:///numbers.csv' AS r RETURN r[0] LIMIT 2", 'read')).toEqual([
      ['0'],
      ['1'],
    ])
    const refused = await e.run({
      query: "LOAD CSV FROM 'file:///tabs.tsv' AS r CREATE (:T {x: r[0]})",
      mode: 'read',
    })
    expect(refused.validation_errors[0]?.code).toBe('WRITE_PERMISSION_REQUIRED')
    const written = await e.run({
      query: "LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS p CREATE (:Person {name: p.name})",
      mode: 'write',
    })
    expect(written.mutation_summary.created_nodes).toBe(3)
    expect(await rows(e, 'MATCH (p:Person) RETURN p.name ORDER BY p.name')).toEqual([
      ['Ada'],
      ['Bo'],
      ['Smith, Jo'],
    ])
  })

  it('counts a batched load as work, not as rows a result holds', async () => {
    const e = engine({ budgets: { maxLoadedRecords: 1000, maxMutations: 5000 } })
    const loaded = await e.run({
      query: `LOAD CSV FROM 'file:///numbers.csv' AS r CALL (r) { CREATE (:M {n: r[0]}) } IN TRANSACTIONS OF 2000 ROWS`,
      mode: 'write',
    })
    expect(loaded.mutation_summary.created_nodes).toBe(2500)
    const read = await e.run({ query: "LOAD CSV FROM 'file:///numbers.csv' AS r RETURN r", mode: 'read' })
    expect(read.validation_errors[0]?.code).toBe('QUERY_BUDGET_EXCEEDED')
  })

  it('streams into CALL { … } IN TRANSACTIONS: each batch commits, progress is reported', async () => {
    const batches: number[] = []
    const e = engine({ onBatch: (progress) => batches.push(progress.rows) })
    const result = await e.run({
      query: `LOAD CSV FROM 'file:///numbers.csv' AS r WITH toInteger(r[0]) AS n, linenumber() AS line
              CALL { WITH n, line CREATE (:N {n: n, line: line}) } IN TRANSACTIONS OF 1000 ROWS`,
      mode: 'write',
    })
    expect(result.status).toBe('Success')
    expect(result.mutation_summary.created_nodes).toBe(2500)
    expect(batches).toEqual([1000, 2000, 2500])
    expect(await rows(e, 'MATCH (x:N) WHERE x.n = 41 RETURN x.line')).toEqual([[42]])
    const counted = await rows(
      e,
      `LOAD CSV FROM 'file:///numbers.csv' AS r CALL { WITH r MATCH (x:N {n: toInteger(r[0])}) SET x.seen = true }
       IN TRANSACTIONS OF 500 ROWS RETURN count(*) AS rows`,
    )
    expect(counted).toEqual([[2500]])
  })

  it('linenumber() and file() inside the CALL name the row the batch is running', async () => {
    const e = engine()
    const result = await e.run({
      query: `LOAD CSV FROM 'file:///numbers.csv' AS r
              CALL (r) { CREATE (:L {n: r[0], line: linenumber(), f: file()}) } IN TRANSACTIONS OF 700 ROWS`,
      mode: 'write',
    })
    expect(result.status).toBe('Success')
    expect(
      await rows(e, "MATCH (x:L) WHERE x.n IN ['0', '41', '2499'] RETURN x.n, x.line, x.f ORDER BY x.line"),
    ).toEqual([
      ['0', 1, 'file:///numbers.csv'],
      ['41', 42, 'file:///numbers.csv'],
      ['2499', 2500, 'file:///numbers.csv'],
    ])
  })

  it('refuses what it cannot do with clear errors', async () => {
    expect(
      await failure(engine(), "USING PERIODIC COMMIT 500 LOAD CSV FROM 'file:///a.csv' AS r CREATE (:A)"),
    ).toEqual({ code: 'CYPHER_SYNTAX_ERROR', message: expect.stringContaining('IN TRANSACTIONS') })
    expect(
      (await failure(engine(), "CREATE (:X) WITH 1 AS one LOAD CSV FROM 'file:///tabs.tsv' AS r RETURN r"))
        .message,
    ).toContain('the clauses before LOAD CSV cannot write')
    expect(
      (
        await failure(
          engine(),
          "LOAD CSV FROM 'file:///tabs.tsv' AS a LOAD CSV FROM 'file:///tabs.tsv' AS b RETURN b",
        )
      ).code,
    ).toBe('INVALID_CLAUSE_COMPOSITION')
    expect((await failure(engine(), "LOAD CSV FROM 'file:///tabs.tsv' AS r")).message).toContain('LOAD CSV')
    const none = await failure(
      new CypherEngine(new GraphCatalog()),
      "LOAD CSV FROM 'file:///tabs.tsv' AS r RETURN r",
    )
    expect(none).toEqual({
      code: 'LOAD_CSV_NOT_ALLOWED',
      message: expect.stringContaining('SERVICE_CYPHER_IMPORT_DIR'),
    })
    expect((await failure(engine(), "LOAD CSV FROM 'file:///missing.csv' AS r RETURN r")).code).toBe(
      'EXTERNAL_RESOURCE_FAILED',
    )
    expect((await failure(engine(), 'LOAD CSV FROM 42 AS r RETURN r')).code).toBe('INVALID_ARGUMENT_TYPE')
    expect(await failure(engine(), "LOAD CSV FROM 'file:///broken.csv' AS r RETURN r")).toEqual({
      code: 'EXTERNAL_RESOURCE_FAILED',
      message: expect.stringContaining("'file:///broken.csv'"),
    })
    // Bolt reports both as Neo4j does.
    for (const code of ['LOAD_CSV_NOT_ALLOWED', 'EXTERNAL_RESOURCE_FAILED'])
      expect(neo4jStatusCode(code)).toBe('Neo.ClientError.Statement.ExternalResourceFailed')
  })
})

describe('LOAD CSV from http(s)', () => {
  let server: Server
  let base: string
  const hits: string[] = []
  /** The order things happen in the streaming test: a batch committed, the rest of the body sent. */
  const events: string[] = []
  let firstBatch: () => void = () => {}
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '')
      if (req.url === '/data/slow.csv') {
        // Half the body, then the rest only once a batch has committed (or after 3 s, for a reader that waits
        // for the whole file, which the order of events then shows).
        res.write(Array.from({ length: 1500 }, (_, i) => `${i}\n`).join(''))
        const rest = () => {
          events.push('rest sent')
          res.end(Array.from({ length: 1000 }, (_, i) => `${1500 + i}\n`).join(''))
        }
        const timer = setTimeout(rest, 3000)
        firstBatch = () => {
          clearTimeout(timer)
          rest()
        }
      } else if (req.url === '/data/people.csv') res.end('name\nAda\n')
      else if (req.url === '/data/people.csv.gz') res.end(gzipSync('name\nZed\n'))
      else if (req.url === '/data/moved.csv') res.writeHead(302, { location: '/secret.csv' }).end()
      else res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('fetches a URL under an allowed prefix, streaming (gzip too)', async () => {
    const e = engine({ csvImport: { allowedUrls: [`${base}/data/`] } })
    expect(await rows(e, `LOAD CSV WITH HEADERS FROM '${base}/data/people.csv' AS p RETURN p.name`)).toEqual([
      ['Ada'],
    ])
    expect(
      await rows(e, `LOAD CSV WITH HEADERS FROM '${base}/data/people.csv.gz' AS p RETURN p.name`),
    ).toEqual([['Zed']])
    expect((await failure(e, `LOAD CSV FROM '${base}/data/nope.csv' AS r RETURN r`)).code).toBe(
      'EXTERNAL_RESOURCE_FAILED',
    )
  })

  it('streams: the first batch commits before the rest of the file has arrived', async () => {
    const e = engine({
      csvImport: { allowedUrls: [`${base}/data/`] },
      onBatch: (progress) => {
        events.push(`batch ${progress.batch}`)
        if (progress.batch === 1) firstBatch()
      },
    })
    const result = await e.run({
      query: `LOAD CSV FROM '${base}/data/slow.csv' AS r CALL (r) { CREATE (:S {n: r[0]}) } IN TRANSACTIONS OF 1000 ROWS`,
      mode: 'write',
    })
    expect(result.mutation_summary.created_nodes).toBe(2500)
    expect(events).toEqual(['batch 1', 'rest sent', 'batch 2', 'batch 3'])
  })

  it('never contacts an address that is not allowed, nor follows a redirect', async () => {
    hits.length = 0
    const e = engine({ csvImport: { allowedUrls: [`${base}/data/`] } })
    expect((await failure(e, `LOAD CSV FROM '${base}/secret.csv' AS r RETURN r`)).code).toBe(
      'LOAD_CSV_NOT_ALLOWED',
    )
    expect((await failure(engine(), `LOAD CSV FROM '${base}/data/people.csv' AS r RETURN r`)).code).toBe(
      'LOAD_CSV_NOT_ALLOWED',
    )
    expect(hits).toEqual([])
    expect((await failure(e, `LOAD CSV FROM '${base}/data/moved.csv' AS r RETURN r`)).code).toBe(
      'EXTERNAL_RESOURCE_FAILED',
    )
    expect(hits).toEqual(['/data/moved.csv'])
  })
})

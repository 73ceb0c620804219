import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { EngineError } from '../errors.js'
import { openEngine } from '../runtime/index.js'
import { PAYLOAD_RECORD_FORMAT } from '../version.js'
import { importCsv } from './csv-import.js'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

function scratch() {
  const root = mkdtempSync(join(tmpdir(), 'import-csv-'))
  roots.push(root)
  const file = (name: string, text: string | Buffer) => {
    const path = join(root, name)
    writeFileSync(path, text)
    return path
  }
  return { root, dir: join(root, 'store'), report: join(root, 'import.report'), file }
}

/** Imports one nodes group and one relationships group into `s.dir`. */
function importPair(
  s: ReturnType<typeof scratch>,
  nodes: { files: string[]; labels?: string[] },
  rels: { files: string[]; type?: string },
  extra: Partial<Parameters<typeof importCsv>[0]> = {},
) {
  return importCsv({ dir: s.dir, nodes: [nodes], relationships: [rels], reportPath: s.report, ...extra })
}

async function rows(dir: string, query: string) {
  const engine = await openEngine({
    storage: { mode: 'persistent', dir },
    cypherBudgets: { maxLoadedRecords: 1_000_000, maxWarmAdjacencyEntries: 1_000_000 },
  })
  try {
    const result = await engine.read(query, {})
    if (result.data === null || result.data === undefined) throw new Error(JSON.stringify(result))
    return result.data.rows
  } finally {
    await engine.close()
  }
}

describe('import-csv builds a store the engine opens', () => {
  it('imports nodes in id spaces and relationships between them, with typed properties', async () => {
    const s = scratch()
    const people = s.file(
      'people.csv',
      'id:ID(Person),name,age:int,score:float,ok:boolean,tags:string[],born:date,:LABEL\n' +
        'p1,Ada,36,1.5,true,a;b,1815-12-10,Admin\n' +
        'p2,"Bob, Jr.",41,,false,,,\n',
    )
    // the same id text in another id space is another node
    const companies = s.file('companies.csv.gz', gzipSync('id:ID(Company),name\np1,Acme\n'))
    const works = s.file('works.csv', ':START_ID(Person),:END_ID(Company),since:int\np1,p1,2001\np2,p1,\n')
    const summary = await importCsv({
      dir: s.dir,
      nodes: [
        { files: [people], labels: ['Person'] },
        { files: [companies], labels: ['Company'] },
      ],
      relationships: [{ files: [works], type: 'WORKS_AT' }],
      reportPath: s.report,
    })
    expect(summary).toMatchObject({ nodes: 3, relationships: 2, rows: 5, rejected: 0 })
    expect(
      await rows(
        s.dir,
        'MATCH (p:Person) RETURN p.id, p.name, p.age, p.score, p.ok, p.tags, toString(p.born), labels(p) ORDER BY p.id',
      ),
    ).toEqual([
      ['p1', 'Ada', 36, 1.5, true, ['a', 'b'], '1815-12-10', ['Person', 'Admin']],
      ['p2', 'Bob, Jr.', 41, null, false, null, null, ['Person']],
    ])
    expect(
      await rows(
        s.dir,
        'MATCH (p:Person)-[w:WORKS_AT]->(c:Company) RETURN p.name, w.since, c.name ORDER BY p.name',
      ),
    ).toEqual([
      ['Ada', 2001, 'Acme'],
      ['Bob, Jr.', null, 'Acme'],
    ])
  })

  it('reports bad rows and imports the rest', async () => {
    const s = scratch()
    const nodes = s.file('n.csv', 'id:ID,n:int\na,1\na,2\nb,abc\nc,3\n,4\nd\n')
    const rels = s.file('r.csv', ':START_ID,:END_ID,:TYPE\na,c,R\na,zz,R\nc,a,\n')
    const summary = await importPair(s, { files: [nodes], labels: ['N'] }, { files: [rels] })
    expect(summary).toMatchObject({
      nodes: 2,
      relationships: 1,
      rejected: 6,
      rejected_by_kind: {
        duplicate_id: 1,
        type_error: 1,
        bad_id: 1,
        field_count: 1,
        dangling_relationship: 1,
        missing_type: 1,
      },
    })
    const report = readFileSync(s.report, 'utf8')
    expect(report).toContain(`${nodes}:3: duplicate_id: id "a" is already taken`)
    expect(report).toContain(`${nodes}:4: type_error: n: "abc" is not an integer`)
    expect(report).toContain(`${rels}:3: dangling_relationship: :END_ID "zz" names no node`)
    expect(await rows(s.dir, 'MATCH (n:N) RETURN n.id, n.n ORDER BY n.id')).toEqual([
      ['a', 1],
      ['c', 3],
    ])
  })

  it('keeps integer ids as integers with idType integer, and 07 and 7 are one id', async () => {
    const s = scratch()
    const nodes = s.file('n.csv', 'uid:ID(P),name\n7,seven\n07,again\nx,bad\n8,eight\n')
    const rels = s.file('r.csv', ':START_ID(P),:END_ID(P)\n007,8\n')
    const summary = await importPair(
      s,
      { files: [nodes], labels: ['P'] },
      { files: [rels], type: 'R' },
      { idType: 'integer' },
    )
    expect(summary).toMatchObject({
      nodes: 2,
      relationships: 1,
      rejected_by_kind: { duplicate_id: 1, bad_id: 1 },
    })
    expect(readFileSync(s.report, 'utf8')).toContain(':ID "x" is not an integer')
    expect(await rows(s.dir, 'MATCH (a:P)-[:R]->(b:P) RETURN a.uid, b.uid, a.uid + 1')).toEqual([[7, 8, 8]])
  })

  it('stops past the bad-row tolerance and leaves the directory empty', async () => {
    const s = scratch()
    mkdirSync(s.dir)
    const nodes = s.file('n.csv', 'id:ID,n:int\na,x\nb,y\n')
    await expect(
      importCsv({
        dir: s.dir,
        nodes: [{ files: [nodes] }],
        relationships: [],
        reportPath: s.report,
        badTolerance: 1,
      }),
    ).rejects.toMatchObject({ code: 'IMPORT_TOO_MANY_BAD_ROWS' })
    expect(readdirSync(s.dir)).toEqual([])
  })

  it('refuses a non-empty target and an unknown header type', async () => {
    const s = scratch()
    mkdirSync(s.dir)
    writeFileSync(join(s.dir, 'keep'), 'x')
    const nodes = s.file('n.csv', 'id:ID\na\n')
    const refused = importCsv({
      dir: s.dir,
      nodes: [{ files: [nodes] }],
      relationships: [],
      reportPath: s.report,
    })
    await expect(refused).rejects.toBeInstanceOf(EngineError)
    await expect(refused).rejects.toMatchObject({ code: 'IMPORT_TARGET_NOT_EMPTY' })
    await expect(
      importCsv({
        dir: join(s.root, 'other'),
        nodes: [{ files: [join(s.root, 'missing.csv')] }],
        relationships: [],
        reportPath: s.report,
      }),
    ).rejects.toMatchObject({
      code: 'IMPORT_INPUT_INVALID',
      message: expect.stringMatching(/missing.csv does not exist/),
    })
    expect(existsSync(join(s.root, 'other'))).toBe(false)
    const bad = s.file('bad.csv', 'id:ID,n:integer\na,1\n')
    await expect(
      importCsv({
        dir: join(s.root, 'other'),
        nodes: [{ files: [bad] }],
        relationships: [],
        reportPath: s.report,
      }),
    ).rejects.toMatchObject({
      code: 'IMPORT_INPUT_INVALID',
      message: expect.stringMatching(/unknown type "integer"/),
    })
  })

  it('takes up to 30 property columns in one header (the id counts) and refuses a 31st', async () => {
    const s = scratch()
    const wide = (columns: number) => {
      const names = Array.from({ length: columns - 1 }, (_, i) => `c${i}:int`)
      const row = (r: number) => [r, ...names.map((_, i) => r * 100 + i)].join(',')
      return `id:ID(W),${names.join(',')}\n${row(1)}\n${row(2)}\n`
    }
    await importCsv({
      dir: s.dir,
      nodes: [{ files: [s.file('w30.csv', wide(30))], labels: ['W'] }],
      relationships: [],
      reportPath: s.report,
    })
    expect(await rows(s.dir, 'MATCH (n:W) RETURN n.id, n.c0, n.c28 ORDER BY n.c0')).toEqual([
      ['1', 100, 128],
      ['2', 200, 228],
    ])
    await expect(
      importCsv({
        dir: join(s.root, 'other'),
        nodes: [{ files: [s.file('w31.csv', wide(31))] }],
        relationships: [],
        reportPath: s.report,
      }),
    ).rejects.toMatchObject({
      code: 'IMPORT_INPUT_INVALID',
      message: expect.stringMatching(/more than 30 property columns in one header/),
    })
  })

  it('reads a header file followed by data files, and a tab delimiter; long strings go to the payload file', async () => {
    const s = scratch()
    const long = 'é'.repeat(200)
    const header = s.file('h.tsv', 'id:ID\ttext\n')
    const part1 = s.file('p1.tsv', `a\t${long}\n`)
    const part2 = s.file('p2.tsv', 'b\tshort\n')
    const summary = await importCsv({
      dir: s.dir,
      nodes: [{ files: [header, part1, part2], labels: ['T'] }],
      relationships: [],
      reportPath: s.report,
      format: { delimiter: '\t' },
    })
    expect(summary).toMatchObject({ nodes: 2, rejected: 0 })
    expect(summary.payload_bytes).toBeGreaterThan(400)
    expect(JSON.parse(readFileSync(join(s.dir, 'manifest.json'), 'utf8')).record_format).toBe(
      PAYLOAD_RECORD_FORMAT,
    )
    expect(await rows(s.dir, 'MATCH (t:T) RETURN t.id, t.text ORDER BY t.id')).toEqual([
      ['a', long],
      ['b', 'short'],
    ])
  })

  it('takes another quote character and array delimiter', async () => {
    const s = scratch()
    const nodes = s.file('q.csv', `id:ID,name,tags:int[]\na,'x, "y" ''z''',1|2\n`)
    const summary = await importCsv({
      dir: s.dir,
      nodes: [{ files: [nodes], labels: ['Q'] }],
      relationships: [],
      reportPath: s.report,
      format: { quote: "'", arrayDelimiter: '|' },
    })
    expect(summary).toMatchObject({ nodes: 1, rejected: 0 })
    expect(await rows(s.dir, 'MATCH (q:Q) RETURN q.name, q.tags')).toEqual([[`x, "y" 'z'`, [1, 2]]])
  })

  it('fails a malformed file with a clear error and leaves no store', async () => {
    const s = scratch()
    const nodes = s.file('open.csv', 'id:ID,name\na,"never closed\n')
    await expect(
      importCsv({ dir: s.dir, nodes: [{ files: [nodes] }], relationships: [], reportPath: s.report }),
    ).rejects.toMatchObject({
      code: 'IMPORT_INPUT_INVALID',
      message: expect.stringMatching(/open.csv: Quote Not Closed/),
    })
    expect(existsSync(s.dir)).toBe(false)
  })

  it('writes a large image through the checkpoint worker, and it loads back whole', async () => {
    const s = scratch()
    const nodes = s.file('n.csv', `id:ID\n${Array.from({ length: 1000 }, (_, i) => i).join('\n')}\n`)
    // ~30 batches of relationships: past the 4 MiB the checkpoint writer keeps in-process
    const rels = Array.from({ length: 120_000 }, (_, i) => `${i % 1000},${(i * 7) % 1000},${i}`)
    const relFile = s.file('r.csv', `:START_ID,:END_ID,w:int\n${rels.join('\n')}\n`)
    const summary = await importPair(
      s,
      { files: [nodes], labels: ['N'] },
      { files: [relFile], type: 'R' },
      { idType: 'integer' },
    )
    expect(summary).toMatchObject({ nodes: 1000, relationships: 120_000, rejected: 0 })
    expect(summary.image_bytes).toBeGreaterThan(4 * 1024 * 1024)
    expect(
      await rows(s.dir, 'MATCH (a:N)-[r:R]->(b:N) RETURN count(r), sum(r.w), max(a.id), max(b.id)'),
    ).toEqual([[120_000, (119_999 * 120_000) / 2, 999, 999]])
  }, 30_000)
})

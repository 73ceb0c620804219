import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cli } from './backup-support.js'
import { type RunningServer, startServer } from './harness.js'
import { persistentEnv } from './storage-faults-support.js'

const root = mkdtempSync(join(tmpdir(), 'e2e-import-csv-'))
const file = (name: string, text: string) => {
  const path = join(root, name)
  writeFileSync(path, text)
  return path
}

/** Two labels in two id spaces, a relationship file between them, and one bad row of each kind under test. */
function csvSet() {
  const people = ['id:ID(Person),name,age:int,score:float,tags:string[]']
  for (let i = 0; i < 500; i++) people.push(`p${i},person ${i},${20 + (i % 50)},${i / 4},a;b${i % 3}`)
  people.push('p7,a duplicate,1,1,x') // duplicate id
  people.push('p900,bad age,abc,1,x') // int column with 'abc'
  const companies = ['id:ID(Company),name', ...Array.from({ length: 20 }, (_, i) => `c${i},company ${i}`)]
  const works = [':START_ID(Person),:END_ID(Company),since:int']
  for (let i = 0; i < 500; i++) works.push(`p${i},c${i % 20},${1990 + (i % 30)}`)
  works.push('p1,c999,2000') // dangling END_ID
  return {
    people: file('people.csv', `${people.join('\n')}\n`),
    companies: file('companies.csv', `${companies.join('\n')}\n`),
    works: file('works.csv', `${works.join('\n')}\n`),
  }
}

type Rows = { result?: { data?: { rows: unknown[][] } }; ok?: boolean }
const read = async (server: RunningServer, query: string) => {
  const res = await server.request<Rows>('/v1/cypher/read', { body: { query } })
  expect(res.status, res.text).toBe(200)
  return res.json.result?.data?.rows
}

const servers: RunningServer[] = []
afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => {})
  rmSync(root, { recursive: true, force: true })
})

describe('import-csv (offline importer)', () => {
  it('imports a CSV set with bad rows, reports them, and the server starts on the store it wrote', async () => {
    const { people, companies, works } = csvSet()
    const dir = join(root, 'store')
    const report = join(root, 'import.report')
    const run = await cli([
      'import-csv',
      `--nodes=Person=${people}`,
      `--nodes=Company:Organisation=${companies}`,
      `--relationships=WORKS_AT=${works}`,
      '--storage-dir',
      dir,
      '--report',
      report,
    ])
    expect(run.code, run.stderr).toBe(0)
    const summary = JSON.parse(run.stdout)
    expect(summary).toMatchObject({
      nodes: 520,
      relationships: 500,
      rows: 1023,
      rejected: 3,
      rejected_by_kind: { duplicate_id: 1, type_error: 1, dangling_relationship: 1 },
      report,
    })
    expect(run.stderr).toMatch(/rows\/s/)
    const lines = readFileSync(report, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toBe(`${people}:502: duplicate_id: id "p7" is already taken in id space Person`)
    expect(lines[1]).toBe(`${people}:503: type_error: age: "abc" is not an integer`)
    expect(lines[2]).toBe(
      `${works}:502: dangling_relationship: :END_ID "c999" names no node in id space Company`,
    )

    let server = await startServer({ env: persistentEnv(dir) })
    servers.push(server)
    expect(await read(server, 'MATCH (p:Person) RETURN count(p)')).toEqual([[500]])
    expect(await read(server, 'MATCH (c:Company:Organisation) RETURN count(c)')).toEqual([[20]])
    expect(await read(server, 'MATCH (:Person)-[w:WORKS_AT]->(:Company) RETURN count(w)')).toEqual([[500]])
    expect(
      await read(
        server,
        "MATCH (p:Person {id: 'p7'})-[w:WORKS_AT]->(c) RETURN p.name, p.age, p.score, p.tags, w.since, c.name",
      ),
    ).toEqual([['person 7', 27, 1.75, ['a', 'b1'], 1997, 'company 7']])
    expect(
      await read(
        server,
        "MATCH (p:Person {id: 'p7'}) RETURN valueType(p.age), valueType(p.score), valueType(p.tags)",
      ),
    ).toEqual([['INTEGER NOT NULL', 'FLOAT NOT NULL', 'LIST<STRING NOT NULL> NOT NULL']])

    // the store takes writes on top of the image, and they survive a restart with it
    const write = await server.request('/v1/cypher/write', {
      body: { query: "MATCH (c:Company {id: 'c0'}) CREATE (:Person {id: 'new'})-[:WORKS_AT]->(c)" },
    })
    expect(write.status, write.text).toBe(200)
    await server.stop()
    server = await startServer({ env: persistentEnv(dir) })
    servers.push(server)
    expect(
      await read(server, "MATCH (p:Person)-[:WORKS_AT]->(c:Company {id: 'c0'}) RETURN count(p)"),
    ).toEqual([[26]])
    await server.stop()
  })

  it('refuses a non-empty target directory with exit code 2 and touches nothing', async () => {
    const { people } = csvSet()
    const dir = join(root, 'occupied')
    mkdirSync(dir)
    writeFileSync(join(dir, 'keep.txt'), 'x')
    const run = await cli([
      'import-csv',
      '--nodes',
      people,
      '--storage-dir',
      dir,
      '--report',
      join(root, 'r2'),
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/IMPORT_TARGET_NOT_EMPTY: storage directory .* is not empty/)
    expect(readdirSync(dir)).toEqual(['keep.txt'])
  })
})

// The offline-importer column of `pnpm bench cypher`: the generated graph's CSV files (the headerless ones
// Kuzu's COPY FROM reads) imported with `importCsv` (the `import-csv` command's core) into an empty storage
// directory. Each file gets a one-line neo4j-admin header file beside it (`--nodes=Label=header,data`), so
// the data files are the very same bytes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeGraphCsv } from './graph-csv.mjs'
import { GRAPH_SCHEMA } from './graph-generator.mjs'

const typed = ([key, type]) => (type === 'string' ? key : `${key}:${type}`)

/** Imports the graph; returns the rows imported and the milliseconds the import took (the checkpoint's fsync included). */
export async function importCsvOffline(nodes, relationships) {
  const { importCsv, openEngine } = await import('@service/core')
  const root = mkdtempSync(join(tmpdir(), 'import-csv-bench-'))
  const csv = join(root, 'csv')
  mkdirSync(csv)
  try {
    const files = await writeGraphCsv(csv, { nodes, relationships })
    const header = (name, columns) => {
      const file = join(csv, `${name}.header.csv`)
      writeFileSync(file, `${columns.join(',')}\n`)
      return file
    }
    const nodeGroups = Object.entries(GRAPH_SCHEMA.nodes).map(([label, columns]) => ({
      labels: [label],
      files: [
        header(
          label,
          columns.map((c) => (c[0] === 'uid' ? `uid:ID(${label})` : typed(c))),
        ),
        files.get(label).file,
      ],
    }))
    const relGroups = Object.entries(GRAPH_SCHEMA.relationships).map(([type, rel]) => ({
      type,
      files: [
        header(type, [`:START_ID(${rel.from})`, `:END_ID(${rel.to})`, ...rel.properties.map(typed)]),
        files.get(type).file,
      ],
    }))
    const dir = join(root, 'graph')
    const started = performance.now()
    const summary = await importCsv({
      dir,
      nodes: nodeGroups,
      relationships: relGroups,
      idType: 'integer',
      reportPath: join(root, 'import.report'),
      badTolerance: 0,
    })
    const ms = performance.now() - started
    const rows = [...files.values()].reduce((n, f) => n + f.rows, 0)
    // An import that dropped rows must not pass for a fast one: the store opened on it holds every row.
    const engine = await openEngine({ storage: { mode: 'persistent', dir } })
    const count = async (query) => (await engine.read(query, {})).data?.rows[0]?.[0]
    const loaded =
      (await count('MATCH (n) RETURN count(n)')) + (await count('MATCH ()-[r]->() RETURN count(r)'))
    await engine.close()
    if (loaded !== rows || summary.rows !== rows)
      throw new Error(`import-csv loaded ${loaded} records of ${rows} rows`)
    return { ms, rows }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

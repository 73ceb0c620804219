// The generated benchmark graph as CSV files, one per label and relationship type, without a header: the
// files Kuzu's COPY FROM and our LOAD CSV both load. Node files hold the label's columns in GRAPH_SCHEMA
// order; relationship files the start and end uid, then the type's columns.

import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { GRAPH_SCHEMA, generateGraph } from './graph-generator.mjs'

const cell = (v) => (typeof v === 'string' ? `"${v.replaceAll('"', '""')}"` : String(v))

/** Writes `<table>.csv` into `dir` for every label and type; returns each table's file and row count. */
export async function writeGraphCsv(dir, { nodes, relationships }) {
  const tables = new Map()
  const out = (name) => {
    let table = tables.get(name)
    if (table === undefined) {
      const file = join(dir, `${name}.csv`)
      table = { file, rows: 0, stream: createWriteStream(file) }
      tables.set(name, table)
    }
    return table
  }
  const write = async (table, line) => {
    table.rows++
    if (!table.stream.write(`${line}\n`)) await once(table.stream, 'drain')
  }
  const uids = []
  for (const item of generateGraph({ nodes, relationships })) {
    if (item.kind === 'node') {
      const label = item.labels[0]
      uids[item.index] = item.props.uid
      await write(out(label), GRAPH_SCHEMA.nodes[label].map(([k]) => cell(item.props[k])).join(','))
    } else {
      const cols = GRAPH_SCHEMA.relationships[item.type].properties.map(([k]) => cell(item.props[k]))
      await write(out(item.type), [uids[item.start], uids[item.end], ...cols].join(','))
    }
  }
  for (const table of tables.values()) {
    table.stream.end()
    await once(table.stream, 'finish')
    delete table.stream
  }
  return tables
}

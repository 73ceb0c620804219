// `node --expose-gc bench/footprint-parts.mjs [indicators]`: the JS heap a CTI-shaped store costs, part by
// part, in one small embedded process (no server, no fsync: cheap enough to run while others benchmark).
// Imports the set of lib/cti-set.mjs, then measures the heap after a full GC at each step: the whole import,
// the seed-search postings, the same store after a restart (recovered from its checkpoint), and what dropping
// each kind of property value from that store's nodes and relationships frees (raw payloads, long texts, the
// other scalars). What is left after that is topology, labels, ids, indexes
// and record history. This strips the published store in place, so the engine is useless after; that is fine
// for a measurement and is why this never runs in the service.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeValue, GraphStore, openEngine } from '@service/core'
import { ctiBundles, ctiShape } from './lib/cti-set.mjs'

if (typeof globalThis.gc !== 'function') {
  process.stderr.write('run with node --expose-gc\n')
  process.exit(2)
}
const INDICATORS = Number(process.argv[2] ?? 20_000)
const WORKSPACE = 'workspace--parts'

function heap() {
  for (let i = 0; i < 3; i++) globalThis.gc()
  return process.memoryUsage().heapUsed
}

/**
 * Removes the properties whose name `drop` accepts from every published node and relationship, through the
 * store's own replay path (indexes stay consistent); returns the string characters removed.
 */
async function strip(engine, drop) {
  let chars = 0
  await engine.readGraph(WORKSPACE, (store) => {
    const names = []
    for (let id = 0; id < store.names.size; id++) if (drop(store.names.name(id))) names.push(id)
    const ops = []
    const count = (value) => {
      if (typeof value === 'string') chars += value.length
    }
    for (const id of store.allNodeIds())
      for (const key of names) {
        const value = store.node(id)?.props.get(key)
        if (value === undefined) continue
        count(value)
        ops.push({ op: 'removeNodeProperty', id, key: store.names.name(key) })
      }
    for (const id of store.allRelIds())
      for (const key of names) {
        const value = store.relProperty(id, key)
        if (value === undefined) continue
        count(value)
        ops.push({ op: 'removeRelationshipProperty', id, key: store.names.name(key) })
      }
    store.applyCommit({ ops })
  })
  return chars
}

/** A bare store with the same nodes (labels, remaining properties) and relationships, built by replay. */
function copyGraph(store) {
  const copy = new GraphStore()
  const ops = []
  for (const id of store.allNodeIds()) {
    const node = store.node(id)
    const props = {}
    for (const [key, value] of node.props) props[store.names.name(key)] = encodeValue(value)
    ops.push({ op: 'createNode', id, labels: node.labels.map((l) => store.names.name(l)), props })
  }
  for (const id of store.allRelIds())
    ops.push({
      op: 'createRelationship',
      id,
      type: store.names.name(store.relType(id)),
      start: store.relStart(id),
      end: store.relEnd(id),
      props: {},
    })
  copy.applyCommit({ ops })
  return copy
}

const shape = ctiShape(INDICATORS)
const dir = mkdtempSync(join(tmpdir(), 'footprint-parts-'))
const rows = []
const per = (bytes) => (bytes / shape.objects).toFixed(0)
const note = (part, bytes, extra = '') =>
  rows.push({ part, 'MB total': (bytes / 1048576).toFixed(1), 'bytes/object': per(bytes), note: extra })
try {
  const h0 = heap()
  const storage = { mode: 'persistent', dir: join(dir, 'graph'), requireFsync: false }
  let engine = await openEngine({ storage })
  const h1 = heap()
  note('engine itself, empty', h1 - h0)
  for (const bundle of ctiBundles(INDICATORS)) await engine.stix.import({ bundle, workspaceId: WORKSPACE })
  const h2 = heap()
  note('whole import (graph, indexes, history, ledgers)', h2 - h1)
  await engine.seed.warm()
  const h3 = heap()
  note('seed-search postings', h3 - h2)
  // A checkpoint holds its image only while it writes: settled, the heap is back where it was.
  await engine.checkpoint()
  note('held after a checkpoint', heap() - h3)
  // What a restart holds: recovered from the checkpoint, seed index rebuilt. The parts below are of this one.
  await engine.close()
  engine = undefined
  const closed = heap()
  engine = await openEngine({ storage })
  await engine.seed.warm()
  const restarted = heap()
  note('after a restart: whole store, seed index included', restarted - closed)
  const rawChars = await strip(engine, (name) => name === 'stix_raw')
  const h4 = heap()
  note('  stix_raw payloads', restarted - h4, `${(rawChars / shape.objects).toFixed(0)} chars/object`)
  const textChars = await strip(engine, (name) => name === 'name' || name === 'description')
  const h5 = heap()
  note('  name + description', h4 - h5, `${(textChars / shape.objects).toFixed(0)} chars/object`)
  await strip(engine, (name) => name !== 'stix_id')
  const h6 = heap()
  note('  other scalar properties (type, status, dates, confidence, rel type)', h5 - h6)
  if (process.env.FOOTPRINT_PARTS_SNAPSHOT)
    (await import('node:v8')).writeHeapSnapshot(process.env.FOOTPRINT_PARTS_SNAPSHOT)
  note('  left: seed index, topology, labels, ids, indexes, record history, ledgers', h6 - closed)
  const copy = await engine.readGraph(WORKSPACE, copyGraph)
  const h7 = heap()
  note('  of which the graph alone (a copy: nodes, ids, labels, adjacency, rel columns)', h7 - h6)
  copy.names.size // keeps the copy alive until measured
  await engine.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
console.log(
  `JS heap per part, ${shape.objects} objects (${shape.malware} malware, ${shape.indicators} indicators, ${shape.relationships} indicates), Node ${process.version}`,
)
console.table(rows)

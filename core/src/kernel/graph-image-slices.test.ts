import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../graph/catalog.js'
import { SLICE_POINT } from '../storage/checkpoint-encoder.js'
import { checkpointPiece, type GraphImageLine, graphImage } from './graph-image.js'
import { GraphSnapshot } from './image-snapshot.js'

describe('graph image walk', () => {
  it('offers a slice point every 64 records inside a batch, and the writer gets it as is', () => {
    const catalog = new GraphCatalog()
    const store = catalog.workspace()
    for (let id = 0; id < 200; id++)
      store.applyCommit({ ops: [{ op: 'createNode', id, labels: id % 2 ? ['A'] : ['A', 'B'], props: {} }] })
    for (let id = 0; id < 150; id++)
      store.applyCommit({
        ops: [{ op: 'createRelationship', id, type: id % 3 ? 'X' : 'Y', start: id, end: id + 1, props: {} }],
      })
    const seen = [...graphImage(new GraphSnapshot(catalog, () => ({ get: (id) => id + 1 })))]
    const kinds = seen.map((line) => (line === SLICE_POINT ? 'slice' : line.kind))
    // 200 nodes: points after 64, 128, 192; 150 relationships: after 64, 128; each batch one line.
    expect(kinds).toEqual([
      'graph_counters',
      ...['slice', 'slice', 'slice', 'graph_nodes'],
      ...['slice', 'slice', 'graph_rels'],
    ])
    expect(checkpointPiece(SLICE_POINT)).toBe(SLICE_POINT)
    const lines = seen.filter((line): line is GraphImageLine => line !== SLICE_POINT)
    const nodes = lines[1] as Extract<GraphImageLine, { kind: 'graph_nodes' }>
    expect(nodes.label_sets).toEqual([['A', 'B'], ['A']])
    expect(nodes.labels.slice(0, 4)).toEqual([0, 1, 0, 1])
    expect(nodes.created[199]).toBe(200)
    const rels = lines[2] as Extract<GraphImageLine, { kind: 'graph_rels' }>
    expect(rels.types).toEqual(['Y', 'X'])
    expect(Array.from(rels.type).slice(0, 4)).toEqual([0, 1, 1, 0])
    expect(Array.from(rels.end).at(-1)).toBe(150)
    expect(Array.from(rels.created).at(-1)).toBe(150)
  })
})

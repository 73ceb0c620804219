import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'
import { summarizeSchema } from './schema-summary.js'

describe('summarizeSchema', () => {
  it('counts labels, relationship types and property keys, most frequent first', async () => {
    const engine = await openEngine()
    await engine.write(
      "CREATE (a:Malware:Named {name: 'x', kind: 'm'})-[:USES {since: 1}]->(b:Tool {name: 'y'}), (:Tool {name: 'z'})",
      {},
      { workspaceId: 'w' },
    )
    const summary = await engine.readGraph('w', summarizeSchema)
    expect(summary).toEqual({
      node_count: 3,
      relationship_count: 1,
      labels: [
        { label: 'Tool', count: 2 },
        { label: 'Malware', count: 1 },
        { label: 'Named', count: 1 },
      ],
      relationship_types: [{ type: 'USES', count: 1 }],
      node_property_keys: [
        { key: 'name', count: 3 },
        { key: 'kind', count: 1 },
      ],
      relationship_property_keys: [{ key: 'since', count: 1 }],
    })
    await engine.close()
  })
})

import { tick } from '../executor/context.js'
import type { CypherMap, Value } from '../values.js'
import { FULL_SCAN, type PropertyStats, quoteName, sampleSchema } from './graph-schema.js'
import type { ProcedureContext, ProcedureDef } from './registry.js'

/** The Neo4j version whose Cypher dialect and procedures this engine answers as (dbms.components). */
export const NEO4J_COMPATIBLE_VERSION = '5.26.0'

const map = (entries: Record<string, Value>): CypherMap => new Map(Object.entries(entries))

/** Names in use in one role: labels with nodes, types with relationships, keys on some record. */
function namesInUse(ctx: ProcedureContext, role: 'label' | 'type' | 'key'): string[] {
  const g = ctx.graph
  const used = new Set<number>()
  if (role === 'label') {
    for (let id = 0; id < g.names.size; id++) if (g.labelCount(id) > 0) used.add(id)
  } else {
    if (role === 'key') {
      for (const id of g.allNodeIds()) {
        tick(ctx)
        for (const key of g.node(id)?.props.keys() ?? []) used.add(key)
      }
    }
    for (const id of g.allRelIds()) {
      tick(ctx)
      if (role === 'type') used.add(g.relType(id))
      else for (const key of g.relProps(id)?.keys() ?? []) used.add(key)
    }
  }
  return [...used].map((id) => g.names.name(id)).sort()
}

const propertyRows = (props: Map<string, PropertyStats>, sampled: number): [string, Value[], boolean][] =>
  [...props]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, stats]) => [name, [...stats.types].sort(), stats.count === sampled])

export const DB_PROCEDURES: ProcedureDef[] = [
  {
    name: 'db.labels',
    description: 'List all labels attached to nodes within a database.',
    mode: 'READ',
    params: [],
    outputs: [{ name: 'label', type: 'STRING' }],
    run: (_args, ctx) => namesInUse(ctx, 'label').map((label) => [label]),
  },
  {
    name: 'db.relationshipTypes',
    description: 'List all types attached to relationships within a database.',
    mode: 'READ',
    params: [],
    outputs: [{ name: 'relationshipType', type: 'STRING' }],
    run: (_args, ctx) => namesInUse(ctx, 'type').map((type) => [type]),
  },
  {
    name: 'db.propertyKeys',
    description: 'List all property keys in the database.',
    mode: 'READ',
    params: [],
    outputs: [{ name: 'propertyKey', type: 'STRING' }],
    run: (_args, ctx) => namesInUse(ctx, 'key').map((key) => [key]),
  },
  {
    name: 'db.schema.nodeTypeProperties',
    description: 'Show the derived property schema of the nodes in tabular form.',
    mode: 'READ',
    params: [],
    outputs: [
      { name: 'nodeType', type: 'STRING' },
      { name: 'nodeLabels', type: 'LIST<STRING>' },
      { name: 'propertyName', type: 'STRING' },
      { name: 'propertyTypes', type: 'LIST<STRING>' },
      { name: 'mandatory', type: 'BOOLEAN' },
    ],
    *run(_args, ctx) {
      const schema = sampleSchema(ctx, FULL_SCAN)
      for (const [key, type] of [...schema.nodeTypes].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const rows = propertyRows(type.props, type.sampled)
        if (rows.length === 0) yield [key, type.labels, null, null, false]
        for (const [name, types, mandatory] of rows) yield [key, type.labels, name, types, mandatory]
      }
    },
  },
  {
    name: 'db.schema.relTypeProperties',
    description: 'Show the derived property schema of the relationships in tabular form.',
    mode: 'READ',
    params: [],
    outputs: [
      { name: 'relType', type: 'STRING' },
      { name: 'propertyName', type: 'STRING' },
      { name: 'propertyTypes', type: 'LIST<STRING>' },
      { name: 'mandatory', type: 'BOOLEAN' },
    ],
    *run(_args, ctx) {
      const schema = sampleSchema(ctx, FULL_SCAN)
      for (const [name, type] of [...schema.relTypes].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const key = `:${quoteName(name)}`
        const rows = propertyRows(type.props, type.sampled)
        if (rows.length === 0) yield [key, null, null, false]
        for (const [prop, types, mandatory] of rows) yield [key, prop, types, mandatory]
      }
    },
  },
  {
    name: 'db.schema.visualization',
    description:
      'Visualize the schema of the data: one entry per label and one per (label, type, label) connection. ' +
      'Nodes and relationships are maps (the schema is virtual; it has no records).',
    mode: 'READ',
    params: [],
    outputs: [
      { name: 'nodes', type: 'LIST<MAP>' },
      { name: 'relationships', type: 'LIST<MAP>' },
    ],
    run(_args, ctx) {
      const schema = sampleSchema(ctx, FULL_SCAN)
      const nodes = [...schema.labels.keys()]
        .sort()
        .map((name) => map({ name, indexes: [], constraints: [] }))
      const relationships = [...schema.patterns.values()]
        .filter((p) => p.start !== '' && p.end !== '')
        .map((p) => map({ name: p.type, startNode: p.start, endNode: p.end }))
      return [[nodes, relationships]]
    },
  },
  {
    name: 'db.info',
    description: 'Provides information regarding the database.',
    mode: 'READ',
    params: [],
    outputs: [
      { name: 'id', type: 'STRING' },
      { name: 'name', type: 'STRING' },
      { name: 'creationDate', type: 'STRING' },
    ],
    run: (_args, ctx) => [[ctx.host.workspaceId, ctx.host.workspaceId, null]],
  },
  {
    name: 'dbms.components',
    description: 'List DBMS components and their versions.',
    mode: 'DBMS',
    params: [],
    outputs: [
      { name: 'name', type: 'STRING' },
      { name: 'versions', type: 'LIST<STRING>' },
      { name: 'edition', type: 'STRING' },
    ],
    // Clients (LangChain, neo4j-graphrag) gate features on the kernel version: the dialect level we answer.
    run: () => [['Neo4j Kernel', [NEO4J_COMPATIBLE_VERSION], 'community']],
  },
  {
    name: 'db.ping',
    description:
      'This procedure can be used by client side tooling to test whether they are correctly connected.',
    mode: 'READ',
    params: [],
    outputs: [{ name: 'success', type: 'BOOLEAN' }],
    run: () => [[true]],
  },
]

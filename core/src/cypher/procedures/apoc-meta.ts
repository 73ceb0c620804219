import { runtimeError } from '../errors.js'
import { tick } from '../executor/context.js'
import { type CypherMap, typeName, type Value } from '../values.js'
import {
  type GraphSchemaSample,
  type PropertyStats,
  type SampleOptions,
  sampleSchema,
} from './graph-schema.js'
import type { ProcedureContext, ProcedureDef } from './registry.js'

// The APOC meta procedures LangChain (Neo4jGraph), neo4j-graphrag and the Neo4j MCP server read the schema
// with, in APOC 5's output shapes.

const map = (entries: Record<string, Value>): CypherMap => new Map(Object.entries(entries))

/** `{sample: n, maxRels: m}`: how much of the graph to read (APOC's defaults: 1000 nodes a label set, 100 rels a node). */
function sampleOptions(config: Value): SampleOptions {
  const options: SampleOptions = { sample: 1000, maxRels: 100 }
  if (config === null) return options
  if (!(config instanceof Map))
    throw runtimeError('INVALID_ARGUMENT_TYPE', `config must be a map, got ${typeName(config)}`)
  const read = (key: string, fallback: number): number => {
    const value = config.get(key)
    if (value === undefined || value === null) return fallback
    if (typeof value !== 'bigint' && typeof value !== 'number')
      throw runtimeError('INVALID_ARGUMENT_TYPE', `config.${key} must be a number`)
    // APOC: -1 (or any value below 1) means no limit.
    return Number(value) < 1 ? Number.POSITIVE_INFINITY : Number(value)
  }
  return { sample: read('sample', options.sample), maxRels: read('maxRels', options.maxRels) }
}

/** APOC's type name from the Java name db.schema reports: `String` -> STRING, `LongArray` -> LIST. */
function apocType(types: Set<string>): { type: string; array: boolean } {
  const first = [...types].sort()[0] ?? 'String'
  if (first.endsWith('Array')) return { type: 'LIST', array: true }
  const byJava: Record<string, string> = {
    String: 'STRING',
    Long: 'INTEGER',
    Double: 'FLOAT',
    Boolean: 'BOOLEAN',
  }
  return { type: byJava[first] ?? 'STRING', array: false }
}

const byName = <T>(entries: Iterable<[string, T]>): [string, T][] =>
  [...entries].sort(([a], [b]) => (a < b ? -1 : 1))

function metaDataRows(schema: GraphSchemaSample): Value[][] {
  // label, property, count, unique, index, existence, type, array, sample, left, right, other, otherLabels, elementType
  const rows: Value[][] = []
  for (const [label, stats] of byName(schema.labels)) {
    for (const [prop, info] of byName(stats.props)) {
      const { type, array } = apocType(info.types)
      rows.push([
        label,
        prop,
        BigInt(info.count),
        false,
        false,
        info.count === stats.sampled,
        type,
        array,
        null,
        0n,
        0n,
        [],
        [],
        'node',
      ])
    }
    const out = new Map<string, { count: number; ends: Set<string> }>()
    for (const pattern of schema.patterns.values()) {
      if (pattern.start !== label) continue
      const entry = out.get(pattern.type) ?? { count: 0, ends: new Set<string>() }
      entry.count += pattern.count
      if (pattern.end !== '') entry.ends.add(pattern.end)
      out.set(pattern.type, entry)
    }
    for (const [type, entry] of byName(out)) {
      const ends = [...entry.ends].sort()
      rows.push([
        label,
        type,
        BigInt(entry.count),
        false,
        false,
        false,
        'RELATIONSHIP',
        false,
        null,
        BigInt(stats.count),
        BigInt(entry.count),
        ends,
        ends,
        'node',
      ])
    }
  }
  for (const [type, stats] of byName(schema.relTypes)) {
    for (const [prop, info] of byName(stats.props)) {
      const { type: valueType, array } = apocType(info.types)
      rows.push([
        type,
        prop,
        BigInt(info.count),
        false,
        false,
        info.count === stats.sampled,
        valueType,
        array,
        null,
        0n,
        0n,
        [],
        [],
        'relationship',
      ])
    }
  }
  return rows
}

function propertiesMap(props: Map<string, PropertyStats>, sampled: number): CypherMap {
  const out: CypherMap = new Map()
  for (const [prop, info] of byName(props)) {
    const { type, array } = apocType(info.types)
    out.set(prop, map({ type, array, existence: info.count === sampled, indexed: false, unique: false }))
  }
  return out
}

function metaSchema(schema: GraphSchemaSample): CypherMap {
  const value: CypherMap = new Map()
  for (const [label, stats] of byName(schema.labels)) {
    const relationships: CypherMap = new Map()
    for (const direction of ['out', 'in'] as const) {
      const grouped = new Map<string, { count: number; labels: Set<string> }>()
      for (const pattern of schema.patterns.values()) {
        const here = direction === 'out' ? pattern.start : pattern.end
        const there = direction === 'out' ? pattern.end : pattern.start
        if (here !== label) continue
        const entry = grouped.get(pattern.type) ?? { count: 0, labels: new Set<string>() }
        entry.count += pattern.count
        if (there !== '') entry.labels.add(there)
        grouped.set(pattern.type, entry)
      }
      for (const [type, entry] of byName(grouped)) {
        // APOC keys a relationship both ways under its type; the incoming one is kept when distinct.
        const key = relationships.has(type) ? `${type} (in)` : type
        const rel = schema.relTypes.get(type)
        relationships.set(
          key,
          map({
            count: BigInt(entry.count),
            direction,
            labels: [...entry.labels].sort(),
            properties: rel ? propertiesMap(rel.props, rel.sampled) : new Map(),
          }),
        )
      }
    }
    const otherLabels = new Set<string>()
    for (const type of schema.nodeTypes.values())
      if (type.labels.includes(label))
        for (const other of type.labels) if (other !== label) otherLabels.add(other)
    value.set(
      label,
      map({
        count: BigInt(stats.count),
        labels: [...otherLabels].sort(),
        properties: propertiesMap(stats.props, stats.sampled),
        type: 'node',
        relationships,
      }),
    )
  }
  for (const [type, stats] of byName(schema.relTypes)) {
    if (value.has(type)) continue
    value.set(
      type,
      map({
        count: BigInt(stats.count),
        properties: propertiesMap(stats.props, stats.sampled),
        type: 'relationship',
      }),
    )
  }
  return value
}

const CONFIG = { name: 'config', type: 'MAP', default: new Map() as Value }

/** A distinct-values scan of one label's property (apoc.schema.properties.distinct). */
function distinctValues(ctx: ProcedureContext, label: string, key: string): Value[] {
  const g = ctx.graph
  const labelId = g.names.lookup(label)
  const keyId = g.names.lookup(key)
  if (labelId < 0 || keyId < 0) return []
  const seen = new Map<string, Value>()
  for (const id of g.labelNodeIds(labelId)) {
    tick(ctx)
    const value = g.node(id)?.props.get(keyId)
    if (value === undefined) continue
    const k = `${typeof value}:${Array.isArray(value) ? JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)) : String(value)}`
    if (!seen.has(k)) seen.set(k, value as Value)
  }
  return [...seen.values()]
}

export const APOC_META_PROCEDURES: ProcedureDef[] = [
  {
    name: 'apoc.meta.data',
    description:
      'Examines the full graph and returns a table of metadata (sampled: config.sample nodes a label set).',
    mode: 'READ',
    params: [CONFIG],
    outputs: [
      { name: 'label', type: 'STRING' },
      { name: 'property', type: 'STRING' },
      { name: 'count', type: 'INTEGER' },
      { name: 'unique', type: 'BOOLEAN' },
      { name: 'index', type: 'BOOLEAN' },
      { name: 'existence', type: 'BOOLEAN' },
      { name: 'type', type: 'STRING' },
      { name: 'array', type: 'BOOLEAN' },
      { name: 'sample', type: 'LIST<ANY>' },
      { name: 'left', type: 'INTEGER' },
      { name: 'right', type: 'INTEGER' },
      { name: 'other', type: 'LIST<STRING>' },
      { name: 'otherLabels', type: 'LIST<STRING>' },
      { name: 'elementType', type: 'STRING' },
    ],
    run: ([config], ctx) => metaDataRows(sampleSchema(ctx, sampleOptions(config ?? null))),
  },
  {
    name: 'apoc.meta.schema',
    description: 'Returns the metadata of the graph as a map, by label and relationship type.',
    mode: 'READ',
    params: [CONFIG],
    outputs: [{ name: 'value', type: 'MAP' }],
    run: ([config], ctx) => [[metaSchema(sampleSchema(ctx, sampleOptions(config ?? null)))]],
  },
  {
    name: 'apoc.meta.graphSample',
    description:
      'Returns the graph schema as lists of nodes (one a label) and relationships (one a connected label pair), as maps.',
    mode: 'READ',
    params: [CONFIG],
    outputs: [
      { name: 'nodes', type: 'LIST<MAP>' },
      { name: 'relationships', type: 'LIST<MAP>' },
    ],
    run([config], ctx) {
      const schema = sampleSchema(ctx, sampleOptions(config ?? null))
      const nodes = byName(schema.labels).map(([name, stats]) => map({ name, count: BigInt(stats.count) }))
      const relationships = [...schema.patterns.values()]
        .filter((p) => p.start !== '' && p.end !== '')
        .map((p) => map({ type: p.type, startNode: p.start, endNode: p.end, count: BigInt(p.count) }))
      return [[nodes, relationships]]
    },
  },
  {
    name: 'apoc.schema.properties.distinct',
    description: 'Returns all distinct values of a node property of a label.',
    mode: 'READ',
    params: [
      { name: 'label', type: 'STRING' },
      { name: 'key', type: 'STRING' },
    ],
    outputs: [{ name: 'value', type: 'LIST<ANY>' }],
    run: ([label, key], ctx) => [[distinctValues(ctx, String(label), String(key))]],
  },
]

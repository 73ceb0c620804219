import { PropertyMap } from '../../graph/property-map.js'
import type { PropertyValue } from '../../graph/types.js'
import { runtimeError, typeError } from '../errors.js'
import { tick } from '../executor/context.js'
import { checkMutations, toProperty, txOf } from '../executor/write.js'
import { type CypherMap, NodeValue, RelValue, typeName, type Value } from '../values.js'
import type { ProcedureContext, ProcedureDef } from './registry.js'

// The APOC write procedures graph builders use (LangChain's add_graph_documents, neo4j-graphrag's writers):
// merge a node or relationship by identifying properties, add labels. They run in the query's transaction.

function stringList(name: string, value: Value): string[] {
  if (value === null) return []
  const list = Array.isArray(value) ? value : [value]
  return list.map((item) => {
    if (typeof item !== 'string' || item === '')
      throw typeError(`${name} must hold non-empty strings, got ${typeName(item)}`)
    return item
  })
}

function mapArg(name: string, value: Value): CypherMap {
  if (value === null) return new Map()
  if (!(value instanceof Map)) throw typeError(`${name} must be a map, got ${typeName(value)}`)
  return value
}

function setProps(
  ctx: ProcedureContext,
  set: (key: number, value: PropertyValue | undefined) => boolean,
  props: CypherMap,
) {
  for (const [key, value] of props)
    if (set(ctx.graph.names.id(key), toProperty(value))) ctx.stats.properties_set++
}

function matches(
  record: ReadonlyMap<number, PropertyValue> | undefined,
  ident: [number, PropertyValue][],
): boolean {
  if (record === undefined) return false
  for (const [key, value] of ident) {
    const have = record.get(key)
    if (have === undefined) return false
    if (Array.isArray(have) || Array.isArray(value)) {
      if (JSON.stringify(have, big) !== JSON.stringify(value, big)) return false
    } else if (
      have !== value &&
      !(typeof have !== 'string' && typeof value !== 'string' && Number(have) === Number(value))
    )
      return false
  }
  return true
}

const big = (_key: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)

function identity(ctx: ProcedureContext, props: CypherMap): [number, PropertyValue][] {
  const out: [number, PropertyValue][] = []
  for (const [key, value] of props) {
    const prop = toProperty(value)
    if (prop === undefined)
      throw runtimeError('MERGE_NULL_PROPERTY', `cannot merge on a null value for property '${key}'`)
    out.push([ctx.graph.names.id(key), prop])
  }
  return out
}

function mergeNode(ctx: ProcedureContext, args: Value[]): Value[] {
  const [labelsArg, identArg, onCreateArg, onMatchArg] = args
  const labels = stringList('labels', labelsArg ?? null)
  const identProps = mapArg('identProps', identArg ?? null)
  const tx = txOf(ctx)
  const g = ctx.graph
  const labelIds = labels.map((label) => g.names.id(label))
  const ident = identity(ctx, identProps)
  const candidates = labelIds.length > 0 ? g.labelNodeIds(labelIds[0] as number) : g.allNodeIds()
  for (const id of candidates) {
    tick(ctx)
    const node = g.node(id)
    if (node === undefined || !labelIds.every((label) => node.labels.includes(label))) continue
    if (!matches(node.props, ident)) continue
    setProps(
      ctx,
      (key, value) => tx.setNodeProperty(id, key, value),
      mapArg('onMatchProps', onMatchArg ?? null),
    )
    checkMutations(ctx, tx)
    return [new NodeValue(id)]
  }
  const props = new PropertyMap()
  for (const [key, value] of ident) props.set(key, value)
  for (const [key, value] of mapArg('onCreateProps', onCreateArg ?? null)) {
    const prop = toProperty(value)
    if (prop !== undefined) props.set(g.names.id(key), prop)
  }
  const id = tx.createNode([...new Set(labelIds)], props)
  ctx.stats.created_nodes++
  ctx.stats.labels_added += new Set(labelIds).size
  ctx.stats.properties_set += props.size
  checkMutations(ctx, tx)
  return [new NodeValue(id)]
}

function mergeRelationship(ctx: ProcedureContext, args: Value[]): Value[] {
  const [startArg, typeArg, identArg, onCreateArg, endArg, onMatchArg] = args
  if (!(startArg instanceof NodeValue))
    throw typeError(`startNode must be a node, got ${typeName(startArg ?? null)}`)
  if (!(endArg instanceof NodeValue))
    throw typeError(`endNode must be a node, got ${typeName(endArg ?? null)}`)
  if (typeof typeArg !== 'string' || typeArg === '') throw typeError('relType must be a non-empty string')
  const tx = txOf(ctx)
  const g = ctx.graph
  const typeId = g.names.id(typeArg)
  const ident = identity(ctx, mapArg('identProps', identArg ?? null))
  for (const rel of g.node(startArg.id)?.out ?? []) {
    tick(ctx)
    if (g.relType(rel) !== typeId || g.relEnd(rel) !== endArg.id) continue
    if (!matches(g.relProps(rel), ident)) continue
    setProps(
      ctx,
      (key, value) => tx.setRelationshipProperty(rel, key, value),
      mapArg('onMatchProps', onMatchArg ?? null),
    )
    checkMutations(ctx, tx)
    return [new RelValue(rel)]
  }
  const props = new PropertyMap()
  for (const [key, value] of ident) props.set(key, value)
  for (const [key, value] of mapArg('onCreateProps', onCreateArg ?? null)) {
    const prop = toProperty(value)
    if (prop !== undefined) props.set(g.names.id(key), prop)
  }
  const id = tx.createRelationship(typeId, startArg.id, endArg.id, props)
  ctx.stats.created_relationships++
  ctx.stats.properties_set += props.size
  checkMutations(ctx, tx)
  return [new RelValue(id)]
}

function addLabels(ctx: ProcedureContext, nodesArg: Value, labelsArg: Value): Value[][] {
  const tx = txOf(ctx)
  const labels = stringList('labels', labelsArg)
  const nodes = nodesArg === null ? [] : Array.isArray(nodesArg) ? nodesArg : [nodesArg]
  return nodes.map((node) => {
    if (!(node instanceof NodeValue)) throw typeError(`nodes must hold nodes, got ${typeName(node)}`)
    for (const label of labels) if (tx.addLabel(node.id, ctx.graph.names.id(label))) ctx.stats.labels_added++
    checkMutations(ctx, tx)
    return [node]
  })
}

const emptyMap = (name: string) => ({ name, type: 'MAP', default: new Map() as Value })

export const APOC_WRITE_PROCEDURES: ProcedureDef[] = [
  {
    name: 'apoc.merge.node',
    description:
      'Merges a node with the given labels and identifying properties; sets the others on create or match.',
    mode: 'WRITE',
    params: [
      { name: 'labels', type: 'LIST<STRING>' },
      { name: 'identProps', type: 'MAP' },
      emptyMap('onCreateProps'),
      emptyMap('onMatchProps'),
    ],
    outputs: [{ name: 'node', type: 'NODE' }],
    run: (args, ctx) => [mergeNode(ctx, args)],
  },
  {
    name: 'apoc.merge.relationship',
    description: 'Merges a relationship of a type between two nodes by identifying properties.',
    mode: 'WRITE',
    params: [
      { name: 'startNode', type: 'NODE' },
      { name: 'relType', type: 'STRING' },
      { name: 'identProps', type: 'MAP' },
      { name: 'onCreateProps', type: 'MAP' },
      { name: 'endNode', type: 'NODE' },
      emptyMap('onMatchProps'),
    ],
    outputs: [{ name: 'rel', type: 'RELATIONSHIP' }],
    run: (args, ctx) => [mergeRelationship(ctx, args)],
  },
  {
    name: 'apoc.create.addLabels',
    description: 'Adds the given labels to the given nodes.',
    mode: 'WRITE',
    params: [
      { name: 'nodes', type: 'ANY' },
      { name: 'labels', type: 'LIST<STRING>' },
    ],
    outputs: [{ name: 'node', type: 'NODE' }],
    run: ([nodes, labels], ctx) => addLabels(ctx, nodes ?? null, labels ?? null),
  },
]

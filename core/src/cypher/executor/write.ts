import { PropertyMap } from '../../graph/property-map.js'
import type { Transaction } from '../../graph/transaction.js'
import type { Interner, PropertyValue, ScalarProperty } from '../../graph/types.js'
import type { Scope } from '../analyzer.js'
import type { Expr, PatternPart, PropertyTarget, RemoveItem, SetItem } from '../ast.js'
import type { Eval } from '../compile-expr.js'
import { budgetError, runtimeError, typeError } from '../errors.js'
import { propertiesOf } from '../functions.js'
import { isTaggedValue } from '../tagged-value.js'
import { type CypherMap, NodeValue, PathValue, RelValue, typeName, type Value } from '../values.js'
import type { ExecContext, Row } from './context.js'
import { compileDynamicLabels, type DynamicLabels } from './dynamic-labels.js'
import type { MatchEnv } from './match.js'

/** Writes run only against a transaction overlay; a read-only context here is a planner bug. */
export function txOf(ctx: ExecContext): Transaction {
  if (ctx.tx === undefined)
    throw runtimeError('WRITE_PERMISSION_REQUIRED', 'this query writes but runs read-only')
  return ctx.tx
}

export function checkMutations(ctx: ExecContext, tx: Transaction): void {
  if (tx.opCount > ctx.budgets.maxMutations)
    throw budgetError('mutation_count', tx.opCount, ctx.budgets.maxMutations)
}

const isScalar = (v: Value): v is ScalarProperty =>
  typeof v === 'string' ||
  typeof v === 'boolean' ||
  typeof v === 'bigint' ||
  typeof v === 'number' ||
  isTaggedValue(v)

/** A value as a stored property: undefined means "remove"; maps, graph elements and nested lists are refused. */
export function toProperty(value: Value): PropertyValue | undefined {
  if (value === null) return undefined
  if (isScalar(value)) return value
  if (Array.isArray(value)) {
    const out: ScalarProperty[] = []
    for (const item of value) {
      if (!isScalar(item)) {
        throw runtimeError('INVALID_PROPERTY_TYPE', `a property list cannot hold ${typeName(item)}`)
      }
      out.push(item)
    }
    return out
  }
  throw runtimeError('INVALID_PROPERTY_TYPE', `a property cannot hold ${typeName(value)}`)
}

/**
 * The properties a created element gets from one row: a fresh PropertyMap, which the store adopts as the
 * node's own at publish (nothing else holds it).
 */
type PropsBuilder = (row: Row, ctx: ExecContext, forMerge: boolean) => Map<number, PropertyValue>

/** Names interned once per graph name table, not once per created element. */
export class InternedNames {
  private ids: number[] = []
  private table: Interner | undefined

  constructor(private readonly names: readonly string[]) {}

  of(table: Interner): number[] {
    if (this.table !== table) {
      this.ids = this.names.map((name) => table.id(name))
      this.table = table
    }
    return this.ids
  }
}

/**
 * A literal map (`{k: $v, …}`, the usual case) is evaluated straight into a property map with interned
 * keys; any other expression is evaluated to a Cypher map first.
 */
function compileProps(env: MatchEnv, expr: Expr | undefined, scope: Scope): PropsBuilder {
  if (expr === undefined) return (_row, ctx, forMerge) => propsFrom(null, ctx, forMerge)
  if (expr.kind !== 'map') {
    const value = env.exprs.compile(expr, scope)
    return (row, ctx, forMerge) => propsFrom(value(row, ctx), ctx, forMerge)
  }
  const keys = new InternedNames(expr.entries.map(([key]) => key))
  const values = expr.entries.map(([, value]) => env.exprs.compile(value, scope))
  const names = expr.entries.map(([key]) => key)
  return (row, ctx, forMerge) => {
    const ids = keys.of(ctx.graph.names)
    const props = new PropertyMap()
    for (let i = 0; i < values.length; i++) {
      const v = (values[i] as Eval)(row, ctx)
      if (v === null && forMerge)
        throw runtimeError('MERGE_NULL_PROPERTY', `cannot MERGE with a null value for property '${names[i]}'`)
      const p = toProperty(v)
      if (p !== undefined) props.set(ids[i] as number, p)
    }
    return props
  }
}

function propsFrom(value: Value, ctx: ExecContext, forMerge: boolean): Map<number, PropertyValue> {
  const props = new PropertyMap()
  if (value === null) return props
  if (!(value instanceof Map)) throw typeError(`properties must be a map, got ${typeName(value)}`)
  for (const [key, v] of value as CypherMap) {
    if (v === null && forMerge)
      throw runtimeError('MERGE_NULL_PROPERTY', `cannot MERGE with a null value for property '${key}'`)
    const p = toProperty(v)
    if (p !== undefined) props.set(ctx.graph.names.id(key), p)
  }
  return props
}

interface NodeSpec {
  slot: number
  create: boolean
  labels: string[]
  /** Label ids in the graph whose names interned them (plans are shared by workspaces). */
  labelIds: InternedNames
  /** Distinct labels: what `labels_added` counts (worked out once, not per created node). */
  labelsAdded: number
  /** `(n:$(expr))`: labels computed per row. */
  dynamic: DynamicLabels | undefined
  props: PropsBuilder
}

interface RelSpec {
  slot: number
  type: string
  from: number
  to: number
  props: PropsBuilder
}

export interface CreatePart {
  nodes: NodeSpec[]
  rels: RelSpec[]
  path: { slot: number; nodes: number[]; rels: number[] } | undefined
}

/**
 * Compiles one CREATE (or MERGE-create) pattern part. `scope` is updated with the new variables;
 * `slotOf` lets MERGE reuse the slots its match half already assigned.
 */
export function compileCreatePart(
  env: MatchEnv,
  part: PatternPart,
  scope: Scope,
  slotOf: (name: string) => number | undefined,
  merge: boolean,
): CreatePart {
  const nodes: NodeSpec[] = []
  const nodeSlots: number[] = []
  const defineSlot = (name: string | undefined, kind: 'node' | 'rel' | 'path'): number => {
    const slot = (name !== undefined ? slotOf(name) : undefined) ?? env.allocSlot()
    if (name !== undefined) scope.define(name, { slot, kind })
    return slot
  }
  for (const node of part.nodes) {
    const bound = node.variable !== undefined ? scope.get(node.variable) : undefined
    if (bound !== undefined) {
      if (bound.kind !== 'node' && bound.kind !== 'value') {
        env.report('VARIABLE_TYPE_CONFLICT', `variable '${node.variable}' is not a node`, node.start)
      } else if (node.labels.length > 0 || node.props !== undefined || part.nodes.length === 1) {
        env.report('VARIABLE_ALREADY_BOUND', `variable '${node.variable}' is already defined`, node.start)
      }
      nodeSlots.push(bound.slot)
      continue
    }
    const slot = defineSlot(node.variable, 'node')
    nodeSlots.push(slot)
    nodes.push({
      slot,
      create: true,
      labels: node.labels,
      labelIds: new InternedNames(node.labels),
      labelsAdded: new Set(node.labels).size,
      dynamic: compileDynamicLabels(env.exprs, node.dynamicLabels, scope),
      props: compileProps(env, node.props, scope),
    })
  }
  const rels: RelSpec[] = []
  const relSlots: number[] = []
  part.rels.forEach((rel, i) => {
    if (rel.types.length !== 1) {
      env.report('NO_SINGLE_RELATIONSHIP_TYPE', 'a created relationship needs exactly one type', rel.start)
    }
    if (rel.direction === 'both' && !merge) {
      env.report('REQUIRES_DIRECTED_RELATIONSHIP', 'a created relationship needs a direction', rel.start)
    }
    if (rel.varLength !== undefined)
      env.report('CREATING_VAR_LENGTH', 'cannot create a variable-length relationship', rel.start)
    if (rel.variable !== undefined && scope.has(rel.variable)) {
      env.report('VARIABLE_ALREADY_BOUND', `variable '${rel.variable}' is already defined`, rel.start)
    }
    const slot = defineSlot(rel.variable, 'rel')
    relSlots.push(slot)
    const left = nodeSlots[i] as number
    const right = nodeSlots[i + 1] as number
    const inward = rel.direction === 'in'
    rels.push({
      slot,
      type: rel.types[0] ?? '',
      from: inward ? right : left,
      to: inward ? left : right,
      props: compileProps(env, rel.props, scope),
    })
  })
  let path: CreatePart['path']
  if (part.variable !== undefined) {
    if (scope.has(part.variable))
      env.report('VARIABLE_ALREADY_BOUND', `variable '${part.variable}' is already defined`, part.start)
    path = { slot: defineSlot(part.variable, 'path'), nodes: nodeSlots, rels: relSlots }
  }
  return { nodes, rels, path }
}

/** Creates one part's elements for `row` (in place). */
export function runCreatePart(part: CreatePart, row: Row, ctx: ExecContext, merge: boolean): void {
  const tx = txOf(ctx)
  const names = ctx.graph.names
  for (const node of part.nodes) {
    const props = node.props(row, ctx, merge)
    let labelIds = node.labelIds.of(names)
    let added = node.labelsAdded
    if (node.dynamic) {
      labelIds = [...new Set([...labelIds, ...node.dynamic(row, ctx).map((label) => names.id(label))])]
      added = labelIds.length
    }
    const id = tx.createNode(labelIds, props)
    ctx.stats.created_nodes++
    ctx.stats.labels_added += added
    ctx.stats.properties_set += props.size
    row[node.slot] = new NodeValue(id)
  }
  for (const rel of part.rels) {
    const from = row[rel.from]
    const to = row[rel.to]
    if (!(from instanceof NodeValue) || !(to instanceof NodeValue)) {
      throw runtimeError('INVALID_ARGUMENT_VALUE', 'cannot create a relationship to a missing (null) node')
    }
    if (tx.node(from.id) === undefined || tx.node(to.id) === undefined) {
      throw runtimeError('DELETED_ENTITY_ACCESS', 'cannot create a relationship to a deleted node')
    }
    const props = rel.props(row, ctx, merge)
    const id = tx.createRelationship(names.id(rel.type), from.id, to.id, props)
    ctx.stats.created_relationships++
    ctx.stats.properties_set += props.size
    row[rel.slot] = new RelValue(id)
  }
  if (part.path) {
    row[part.path.slot] = new PathValue(
      part.path.nodes.map((slot) => (row[slot] as NodeValue).id),
      part.path.rels.map((slot) => (row[slot] as RelValue).id),
    )
  }
  checkMutations(ctx, tx)
}

export type Mutation = (row: Row, ctx: ExecContext) => void

function setProperty(ctx: ExecContext, target: Value, key: string, value: Value): void {
  if (target === null) return
  const tx = txOf(ctx)
  const keyId = ctx.graph.names.id(key)
  const prop = toProperty(value)
  if (target instanceof NodeValue) {
    if (tx.node(target.id) === undefined)
      throw runtimeError('DELETED_ENTITY_ACCESS', 'cannot set a property on a deleted node')
    if (tx.setNodeProperty(target.id, keyId, prop)) ctx.stats.properties_set++
  } else if (target instanceof RelValue) {
    if (tx.relType(target.id) < 0)
      throw runtimeError('DELETED_ENTITY_ACCESS', 'cannot set a property on a deleted relationship')
    if (tx.setRelationshipProperty(target.id, keyId, prop)) ctx.stats.properties_set++
  } else throw typeError(`cannot set a property on ${typeName(target)}`)
}

/** The key of a SET/REMOVE target: `n.key`, or `n[expr]` evaluated per row, which must give a string. */
function propertyKey(
  env: MatchEnv,
  target: PropertyTarget,
  scope: Scope,
): (row: Row, ctx: ExecContext) => string {
  if (target.kind === 'prop') {
    const key = target.key
    return () => key
  }
  const key = env.exprs.compile(target.index, scope)
  return (row, ctx) => {
    const value = key(row, ctx)
    if (typeof value !== 'string') throw typeError(`a property key must be a string, got ${typeName(value)}`)
    return value
  }
}

function currentKeys(ctx: ExecContext, target: NodeValue | RelValue): string[] {
  const props = propertiesOf(target, ctx) as CypherMap
  return [...props.keys()]
}

/** Compiles SET items (also MERGE's ON CREATE / ON MATCH). */
export function compileSetItems(env: MatchEnv, items: SetItem[], scope: Scope): Mutation[] {
  return items.map((item) => compileSetItem(env, item, scope))
}

function compileSetItem(env: MatchEnv, item: SetItem, scope: Scope): Mutation {
  switch (item.kind) {
    case 'setProperty': {
      if (item.value.kind === 'patternExists')
        env.report(
          'CYPHER_SYNTAX_ERROR',
          'a pattern cannot be a property value; use EXISTS { … }',
          item.value.start,
        )
      const target = env.exprs.compile(item.target.target, scope)
      const value = env.exprs.compile(item.value, scope)
      const key = propertyKey(env, item.target, scope)
      return (row, ctx) => {
        setProperty(ctx, target(row, ctx), key(row, ctx), value(row, ctx))
        checkMutations(ctx, txOf(ctx))
      }
    }
    case 'setAll': {
      const target = env.exprs.compile(
        { kind: 'var', name: item.variable, start: item.start, end: item.start },
        scope,
      )
      const value = env.exprs.compile(item.value, scope)
      const merge = item.merge
      return (row, ctx) => {
        const entity = target(row, ctx)
        if (entity === null) return
        if (!(entity instanceof NodeValue || entity instanceof RelValue))
          throw typeError(`cannot SET properties of ${typeName(entity)}`)
        let source = value(row, ctx)
        if (source instanceof NodeValue || source instanceof RelValue) source = propertiesOf(source, ctx)
        if (source !== null && !(source instanceof Map))
          throw typeError(`SET expects a map, got ${typeName(source)}`)
        const map = (source ?? new Map()) as CypherMap
        if (!merge)
          for (const key of currentKeys(ctx, entity)) if (!map.has(key)) setProperty(ctx, entity, key, null)
        for (const [key, v] of map) setProperty(ctx, entity, key, v)
        checkMutations(ctx, txOf(ctx))
      }
    }
    case 'setLabels': {
      const target = labelTarget(env, item, scope, 'set labels on')
      const labels = item.labels
      const dynamic = compileDynamicLabels(env.exprs, item.dynamic, scope)
      return (row, ctx) => {
        const node = target(row, ctx)
        if (node === null) return
        const tx = txOf(ctx)
        for (const label of dynamic ? [...labels, ...dynamic(row, ctx)] : labels)
          if (tx.addLabel(node.id, ctx.graph.names.id(label))) ctx.stats.labels_added++
        checkMutations(ctx, tx)
      }
    }
  }
}

/** The node a SET/REMOVE of labels applies to: null passes through, anything but a node is a type error. */
function labelTarget(env: MatchEnv, item: { variable: string; start: number }, scope: Scope, verb: string) {
  const target = env.exprs.compile(
    { kind: 'var', name: item.variable, start: item.start, end: item.start },
    scope,
  )
  return (row: Parameters<typeof target>[0], ctx: Parameters<typeof target>[1]): NodeValue | null => {
    const node = target(row, ctx)
    if (node === null) return null
    if (!(node instanceof NodeValue)) throw typeError(`cannot ${verb} ${typeName(node)}`)
    return node
  }
}

export function compileRemoveItems(env: MatchEnv, items: RemoveItem[], scope: Scope): Mutation[] {
  return items.map((item): Mutation => {
    if (item.kind === 'removeProperty') {
      const target = env.exprs.compile(item.target.target, scope)
      const key = propertyKey(env, item.target, scope)
      return (row, ctx) => {
        setProperty(ctx, target(row, ctx), key(row, ctx), null)
        checkMutations(ctx, txOf(ctx))
      }
    }
    const target = labelTarget(env, item, scope, 'remove labels from')
    const labels = item.labels
    const dynamic = compileDynamicLabels(env.exprs, item.dynamic, scope)
    return (row, ctx) => {
      const node = target(row, ctx)
      if (node === null) return
      const tx = txOf(ctx)
      for (const label of dynamic ? [...labels, ...dynamic(row, ctx)] : labels) {
        const id = ctx.graph.names.lookup(label)
        if (id >= 0 && tx.removeLabel(node.id, id)) ctx.stats.labels_removed++
      }
      checkMutations(ctx, tx)
    }
  })
}

function deleteNode(ctx: ExecContext, tx: Transaction, id: number, detach: boolean): void {
  const node = tx.node(id)
  if (node === undefined) return
  if (detach) for (const rel of [...node.out, ...node.in]) deleteRel(ctx, tx, rel)
  const labels = node.labels.length
  if (tx.deleteNode(id)) {
    ctx.stats.deleted_nodes++
    ctx.stats.labels_removed += labels
  }
}

function deleteRel(ctx: ExecContext, tx: Transaction, id: number): void {
  if (tx.deleteRelationship(id)) ctx.stats.deleted_relationships++
}

export function compileDelete(env: MatchEnv, exprs: Expr[], detach: boolean, scope: Scope): Mutation {
  for (const expr of exprs) {
    if (expr.kind === 'hasLabels' || expr.kind === 'literal' || expr.kind === 'binary') {
      env.report('INVALID_DELETE', 'DELETE expects a node, relationship or path', expr.start)
    }
  }
  const evals = exprs.map((expr) => env.exprs.compile(expr, scope))
  const remove = (ctx: ExecContext, tx: Transaction, value: Value): void => {
    if (value === null) return
    if (value instanceof NodeValue) deleteNode(ctx, tx, value.id, detach)
    else if (value instanceof RelValue) deleteRel(ctx, tx, value.id)
    else if (value instanceof PathValue) {
      for (const rel of value.rels) deleteRel(ctx, tx, rel)
      for (const node of value.nodes) deleteNode(ctx, tx, node, detach)
    } else if (Array.isArray(value)) for (const item of value) remove(ctx, tx, item)
    else throw typeError(`cannot DELETE ${typeName(value)}`)
  }
  return (row, ctx) => {
    const tx = txOf(ctx)
    for (const value of evals) remove(ctx, tx, value(row, ctx))
    checkMutations(ctx, tx)
  }
}

// A pattern's nodes: the checks a candidate node passes (labels, label expressions, properties) and the steps
// that bind one (a bound variable, a scan of every node or of a label, an index seek), resumable when streamed.

import { indexHitsAreEqual } from '../../graph/indexes.js'
import type { PropertyValue } from '../../graph/types.js'
import type { Scope } from '../analyzer.js'
import type { Expr, NodePattern } from '../ast.js'
import type { Eval, ExpressionCompiler } from '../compile-expr.js'
import { typeError } from '../errors.js'
import { cachedName } from '../operators.js'
import { type CypherMap, equals, NodeValue, typeName, type Value } from '../values.js'
import { type ExecContext, type Row, tick } from './context.js'
import { compileDynamicLabels } from './dynamic-labels.js'
import { labelExprMatches } from './label-expr.js'
import { resumeSource, SettlingIds } from './resumable.js'
import type { Cont, NodeCheck, PropCheck, Step } from './steps.js'

/** What compiling a node's checks needs of the match compiler. */
type ExprEnv = { readonly exprs: ExpressionCompiler }

export function propCheck(env: ExprEnv, props: Expr, scope: Scope): PropCheck {
  if (props.kind === 'map') {
    const entries = props.entries.map(([key, value]) => [key, env.exprs.compile(value, scope)] as const)
    return (row, ctx, get) => {
      for (const [key, value] of entries) if (equals(get(key), value(row, ctx)) !== true) return false
      return true
    }
  }
  const map = env.exprs.compile(props, scope)
  return (row, ctx, get) => {
    const value = map(row, ctx)
    if (value === null) return true
    if (!(value instanceof Map)) throw typeError(`pattern properties must be a map, got ${typeName(value)}`)
    for (const [key, expected] of value as CypherMap) if (equals(get(key), expected) !== true) return false
    return true
  }
}

export function nodeCheck(env: ExprEnv, node: NodePattern, scope: Scope): NodeCheck {
  const labels = node.labels.map(cachedName)
  const props = node.props ? propCheck(env, node.props, scope) : undefined
  const labelExpr = node.labelExpr
  const dynamic = compileDynamicLabels(env.exprs, node.dynamicLabels, scope)
  if (labels.length === 0 && props === undefined && labelExpr === undefined && dynamic === undefined)
    return undefined
  return (id, row, ctx) => {
    const record = ctx.graph.node(id)
    if (record === undefined) return false
    if (dynamic !== undefined) {
      for (const label of dynamic(row, ctx)) {
        const labelId = ctx.graph.names.lookup(label)
        if (labelId < 0 || !record.labels.includes(labelId)) return false
      }
    }
    if (labelExpr !== undefined && !labelExprMatches(labelExpr, record.labels, ctx.graph.names)) return false
    for (const label of labels) {
      const labelId = label(ctx.graph.names)
      if (labelId < 0 || !record.labels.includes(labelId)) return false
    }
    if (props === undefined) return true
    const names = ctx.graph.names
    return props(row, ctx, (key) => {
      const keyId = names.lookup(key)
      return keyId < 0 ? null : ((record.props.get(keyId) as PropertyValue | undefined) ?? null)
    })
  }
}

export function boundNodeStep(slot: number, check: NodeCheck): Step {
  return (next) => (row, ctx, emit) => {
    const value = row[slot]
    if (value === null || value === undefined) return true
    if (!(value instanceof NodeValue)) throw typeError(`expected a node but got ${typeName(value as Value)}`)
    if (ctx.graph.node(value.id) === undefined) return true
    if (check && !check(value.id, row, ctx)) return true
    return next(row, ctx, emit)
  }
}

function scanIds(
  ids: Iterable<number>,
  slot: number,
  check: NodeCheck,
  next: Cont,
  row: Row,
  ctx: ExecContext,
  emit: (row: Row) => boolean,
): boolean {
  for (const id of ids) {
    tick(ctx)
    if (check && !check(id, row, ctx)) continue
    row[slot] = new NodeValue(id)
    if (!next(row, ctx, emit)) return false
  }
  return true
}

/** The ids a scan visits for a row; `exact`: each is known to pass the node's check (a seek's exact answer). */
interface Found {
  ids: Iterable<number>
  exact?: boolean
}

/**
 * A scan over the ids `find` gives for a row (undefined: nothing to scan), each passing `check` unless the
 * answer is exact. As a streamed run's source (`resumable`, executor/resumable.ts) it goes on from where the
 * previous slice stopped, checks every id, and skips a node deleted since (slices read the published graph as
 * it is when each runs: read committed).
 */
function scanStep(
  slot: number,
  check: NodeCheck,
  resumable: boolean,
  find: (row: Row, ctx: ExecContext) => Found | undefined,
  /** The ids come from an index the store may compact in place: keep what remains at a pause. */
  settle = false,
): Step {
  return (next) => (row, ctx, emit) => {
    const stream = resumable ? ctx.stream : undefined
    if (stream === undefined) {
      const found = find(row, ctx)
      return (
        found === undefined ||
        scanIds(found.ids, slot, found.exact === true ? undefined : check, next, row, ctx, emit)
      )
    }
    return resumeSource(
      stream,
      () => {
        const ids = find(row, ctx)?.ids ?? []
        return settle ? new SettlingIds(ids) : ids[Symbol.iterator]()
      },
      (id) => ctx.graph.node(id) === undefined || scanIds([id], slot, check, next, row, ctx, emit),
    )
  }
}

export function allNodesStep(slot: number, check: NodeCheck, resumable: boolean): Step {
  return scanStep(slot, check, resumable, (_row, ctx) => ({ ids: ctx.graph.allNodeIds() }))
}

export function labelScanStep(slot: number, labels: string[], check: NodeCheck, resumable = false): Step {
  const scan = (_row: Row, ctx: ExecContext): Found | undefined => {
    // The rarest label drives the scan; `check` verifies the others.
    let best = -1
    let bestCount = Number.POSITIVE_INFINITY
    for (const label of labels) {
      const id = ctx.graph.names.lookup(label)
      if (id < 0) return undefined
      const count = ctx.graph.labelCount(id)
      if (count < bestCount) {
        bestCount = count
        best = id
      }
    }
    return { ids: ctx.graph.labelNodeIds(best) }
  }
  return scanStep(slot, check, resumable, scan, true)
}

/**
 * An index seek on `label.key = value`. `covered`: the node pattern asks for nothing else (`(n:L {key: v})`),
 * so when the index's equality is Cypher's for the value (indexHitsAreEqual) its answer is taken unchecked.
 */
export function seekStep(
  slot: number,
  label: string,
  key: string,
  value: Eval,
  check: NodeCheck,
  resumable: boolean,
  covered = false,
): Step {
  return scanStep(slot, check, resumable, (row, ctx) => {
    const v = value(row, ctx)
    const labelId = ctx.graph.names.lookup(label)
    if (v === null || labelId < 0) return undefined
    const keyId = ctx.graph.names.lookup(key)
    if (keyId < 0) return undefined
    const indexable =
      typeof v === 'string' || typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean'
    // Lists and other values are not in the index: scan the label and let `check` compare.
    const ids = indexable
      ? ctx.graph.propertyNodeIds(labelId, keyId, v as PropertyValue)
      : ctx.graph.labelNodeIds(labelId)
    return {
      // A copy (the index entry may change while the scan runs, or a streamed run waits between slices).
      ids: Array.isArray(ids) && ctx.stream === undefined ? ids : [...ids],
      exact: covered && indexable && indexHitsAreEqual(v as PropertyValue),
    }
  })
}

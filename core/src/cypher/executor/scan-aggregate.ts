import { labelColumnOf, type PropertyColumn } from '../../graph/columns.js'
import type { GraphReader } from '../../graph/types.js'
import type { Clause, Expr, Projection } from '../ast.js'
import type { Eval } from '../compile-expr.js'
import { cachedName, type NameResolver } from '../operators.js'
import { NodeValue, truth, type Value, valueKey } from '../values.js'
import { type AccumulatorFactory, accumulatorFor } from './aggregates.js'
import { type ExecContext, type Row, type Stage, type StageFactory, scan } from './context.js'
import { conjunctsOf, onlyProperties } from './scan-topk.js'

/**
 * `MATCH (v:Label) RETURN v.a, v.b, count(*), avg(v.c), …` fused into one operator: it walks the label's
 * node ids and reads the property maps straight into the grouping, with no node value, row copy or
 * expression call per record (the row pipeline spends most of a grouped scan on those). The plan keeps
 * every other shape on the general path; this one computes exactly what that path would.
 */
export interface ScanAggregateShape {
  variable: string
  label: string
  /** Property names read, in scratch-row order. */
  props: string[]
  /** Per grouping-key item: its scratch position. */
  keys: number[]
  /** Per aggregate item: the call and its argument's scratch position (-1 for count(*)). */
  aggregates: { call: Expr & { kind: 'call' }; arg: number }[]
}

const FUSABLE = new Set(['count', 'sum', 'avg', 'min', 'max', 'collect'])

/** The fusable shape of a MATCH clause and the projection after it, or undefined. Syntax only. */
export function scanAggregateShape(match: Clause, projection: Projection): ScanAggregateShape | undefined {
  if (match.kind !== 'match' || match.optional) return undefined
  const part = match.pattern.length === 1 ? match.pattern[0] : undefined
  if (part === undefined || part.variable !== undefined || part.rels.length > 0) return undefined
  const node = part.nodes[0]
  if (node?.variable === undefined || node.labels.length !== 1 || node.props !== undefined) return undefined
  if (projection.star || projection.items.length === 0) return undefined
  const variable = node.variable
  const props: string[] = []
  const position = (expr: Expr): number => {
    if (expr.kind !== 'prop' || expr.target.kind !== 'var' || expr.target.name !== variable) return -2
    const at = props.indexOf(expr.key)
    if (at >= 0) return at
    props.push(expr.key)
    return props.length - 1
  }
  const shape: ScanAggregateShape = {
    variable,
    label: node.labels[0] as string,
    props,
    keys: [],
    aggregates: [],
  }
  for (const item of projection.items) {
    const expr = item.expr
    if (expr.kind === 'call' && FUSABLE.has(expr.name.toLowerCase())) {
      const arg = expr.star ? -1 : expr.args.length === 1 ? position(expr.args[0] as Expr) : -2
      if (arg === -2 || (expr.star && expr.name.toLowerCase() !== 'count')) return undefined
      shape.aggregates.push({ call: expr, arg })
    } else {
      const at = position(expr)
      if (at < 0) return undefined
      shape.keys.push(at)
    }
  }
  if (shape.aggregates.length === 0) return undefined
  // A WHERE may filter on v's properties (an equality stays an index seek on the general path).
  if (match.where !== undefined) {
    const where = match.where
    if (conjunctsOf(where).some((c) => c.kind === 'binary' && c.op === '=')) return undefined
    if (!onlyProperties(where, variable, [])) return undefined
    for (const key of propertyKeys(where, variable)) if (!props.includes(key)) props.push(key)
  }
  return shape
}

function propertyKeys(expr: Expr, variable: string): string[] {
  const keys: string[] = []
  onlyProperties(expr, variable, keys)
  return keys
}

/** A WHERE on the scanned node, compiled to read its properties from the filter row's slots. */
export interface ScanFilter {
  /** Filter-row slot of each of the shape's props. */
  propSlots: number[]
  /** Conjuncts without v: checked once per input row, before the scan. */
  before: Eval[]
  /** Conjuncts on v's properties, in order; a record passes when each is true. */
  where: Eval[]
}

/**
 * The fused stage: for each input row (normally the single blank one) it scans the label and groups; the
 * output rows carry the key and aggregate values in the items' slots, as the general grouping's do.
 */
export function scanAggregateStage(
  shape: ScanAggregateShape,
  nodeSlot: number,
  keySlots: number[],
  aggregateSlots: number[],
  blankRow: () => Row,
  filter: ScanFilter | undefined,
): StageFactory {
  const scratchAt =
    (i: number): Eval =>
    (row) =>
      row[i] as Value
  const factories: AccumulatorFactory[] = shape.aggregates.map(({ call, arg }) =>
    accumulatorFor(call.name.toLowerCase(), arg < 0 ? [] : [scratchAt(arg)], call.distinct, call.star),
  )
  const label = cachedName(shape.label)
  const props: NameResolver[] = shape.props.map(cachedName)
  const keys = shape.keys
  interface Group {
    row: Row
    keys: Value[]
    accumulators: ReturnType<AccumulatorFactory>[]
  }
  return (ctx: ExecContext, next: Stage): Stage => {
    const groups = new Map<string, Group>()
    const byString = new Map<string, Group>()
    const order: Group[] = []
    const scratch: Row = new Array(props.length).fill(null)
    /** Reads the label's property columns (cached by the published store) and groups by dictionary code. */
    const pushColumns = (graph: GraphReader, labelId: number, keyIds: number[], row: Row): void => {
      const columnOf = (key: number): PropertyColumn => labelColumnOf(graph, labelId, key)
      const columns = keyIds.map((keyId) => (keyId < 0 ? undefined : columnOf(keyId)))
      const ids = (columns.find((column) => column !== undefined) ?? columnOf(-1)).ids
      const single = keys.length === 1 ? columns[keys[0] as number] : undefined
      const codes = single?.codes
      const byCode: (Group | undefined)[] = []
      const filterRow = row.slice()
      for (let i = 0; i < ids.length; i++) {
        for (let j = 0; j < columns.length; j++) scratch[j] = columns[j]?.values[i] ?? null
        if (filter !== undefined && !passes(filter, filterRow)) continue
        scan(ctx)
        const code = codes === undefined ? -1 : (codes[i] as number)
        let group = code >= 0 ? byCode[code] : undefined
        if (group === undefined) {
          group = groupOf(row, ids[i] as number)
          if (code >= 0) byCode[code] = group
        }
        for (const accumulator of group.accumulators) accumulator.add(scratch, ctx)
      }
    }
    const passes = (f: ScanFilter, filterRow: Row): boolean => {
      for (let j = 0; j < f.propSlots.length; j++) filterRow[f.propSlots[j] as number] = scratch[j] as Value
      for (const pred of f.where) if (truth(pred(filterRow, ctx)) !== true) return false
      return true
    }
    /** The group of the scratch row's keys, created (with `id` as its first node) when new. */
    const groupOf = (row: Row, id: number): Group => {
      // A single string key is its own map key (strings are hashed once, then compared by pointer);
      // every other key goes by valueKey, which tells 1 from '1' and groups 1 with 1.0.
      let groupId: string
      let table = groups
      if (keys.length === 1) {
        const key = scratch[keys[0] as number] as Value
        if (typeof key === 'string') {
          groupId = key
          table = byString
        } else groupId = valueKey(key)
      } else {
        groupId = ''
        for (const at of keys) groupId += `${valueKey(scratch[at] as Value)}|`
      }
      let group = table.get(groupId)
      if (group === undefined) {
        const first = row.slice()
        first[nodeSlot] = new NodeValue(id)
        group = {
          row: first,
          keys: keys.map((at) => scratch[at] as Value),
          accumulators: factories.map((factory) => factory()),
        }
        table.set(groupId, group)
        order.push(group)
      }
      return group
    }
    return {
      push(row) {
        const graph = ctx.graph
        for (const pred of filter?.before ?? []) if (truth(pred(row, ctx)) !== true) return true
        const labelId = label(graph.names)
        if (labelId < 0) return true
        const keyIds = props.map((resolve) => resolve(graph.names))
        pushColumns(graph, labelId, keyIds, row)
        return true
      },
      finish() {
        if (order.length === 0 && keys.length === 0) {
          order.push({ row: blankRow(), keys: [], accumulators: factories.map((factory) => factory()) })
        }
        for (const group of order) {
          const out = group.row.slice()
          for (let i = 0; i < keySlots.length; i++) out[keySlots[i] as number] = group.keys[i] as Value
          for (let i = 0; i < aggregateSlots.length; i++)
            out[aggregateSlots[i] as number] = (
              group.accumulators[i] as ReturnType<AccumulatorFactory>
            ).result()
          if (!next.push(out)) break
        }
        next.finish()
      },
    }
  }
}

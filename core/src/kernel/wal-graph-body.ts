/**
 * The WAL body of a graph commit. A commit is logged as its redo ops (`ops`), except that a run of many
 * consecutive creates of the same kind (a bulk write: thousands of nodes or relationships) is logged as
 * columns: ids, label lists or types, endpoints, and one column per property key. Per created record that
 * leaves out the op's field names, every property name and the tagged integers (a run of equal values is
 * written once), so a bulk write's log record is about half the size and is written and hashed in about half
 * the time. Recovery and followers expand the columns back into the same ops (`walOps`), so everything that
 * replays a commit sees what the writer published; a body written before runs existed has only `ops`.
 */
import { type CommitOp, CreateNodeOp, CreateRelOp, type EncodedValue, encodeValue } from '../graph/commit.js'
import { setOwn } from '../own-key.js'
import type { LedgerEntry } from './ledger.js'

/** The WAL body of a graph commit: `ops`, or `runs` (plain ops and columnar create runs, in commit order). */
export interface GraphWalBody {
  workspace: string
  ops?: CommitOp[]
  runs?: WalRun[]
  ledgers?: LedgerEntry[]
}

/** Below this many consecutive creates of one kind, ops stay as they are (a small commit logs as before). */
export const MIN_COLUMN_RUN = 16

/** Consecutive ids as `{from, n}`, any others as a list. */
type IdColumn = { from: number; n: number } | number[]
/** One value per record (null: the record lacks the key), or runs `[value, count, value, count, …]`. */
type ValueColumn = (EncodedValue | null)[] | { runs: (EncodedValue | number | null)[] }
/** An index into a table per record, or one index for all. */
type TableColumn = number[] | number

interface PropertyColumns {
  keys: string[]
  cols: ValueColumn[]
}
interface NodeRun extends PropertyColumns {
  ids: IdColumn
  labelSets: string[][]
  labels: TableColumn
}
interface RelRun extends PropertyColumns {
  ids: IdColumn
  types: string[]
  type: TableColumn
  start: number[]
  end: number[]
}
export type WalRun = CommitOp | { nodes: NodeRun } | { rels: RelRun }

type CreateRel = Extract<CommitOp, { op: 'createRelationship' }>

/**
 * The commit's ops with each long run of creates as columns, in commit order; null when there is no such run
 * (the body then holds `ops`, as before runs existed).
 */
export function walRuns(ops: readonly CommitOp[]): WalRun[] | null {
  if (ops.length < MIN_COLUMN_RUN) return null
  const runs: WalRun[] = []
  let columnar = false
  for (let i = 0; i < ops.length; ) {
    const kind = ops[i]?.op
    let end = i
    while (end < ops.length && ops[end]?.op === kind) end++
    if (end - i >= MIN_COLUMN_RUN && (kind === 'createNode' || kind === 'createRelationship')) {
      // A record whose keys come in another order than the run's starts a new run (replay keeps key order).
      while (i < end) {
        const run = kind === 'createNode' ? nodeRun(ops, i, end) : relRun(ops, i, end)
        if (run.count < MIN_COLUMN_RUN) {
          for (let k = i; k < i + run.count; k++) runs.push(ops[k] as CommitOp)
        } else {
          runs.push(run.run)
          columnar = true
        }
        i += run.count
      }
      continue
    }
    for (; i < end; i++) runs.push(ops[i] as CommitOp)
  }
  return columnar ? runs : null
}

/** `JSON.stringify(runs)`, created nodes outside columns written straight from the node. */
export function runsJson(runs: readonly WalRun[]): string {
  let text = '['
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i] as WalRun
    text += `${i > 0 ? ',' : ''}${run instanceof CreateNodeOp ? run.json() : JSON.stringify(run)}`
  }
  return `${text}]`
}

/** The redo ops of a logged body, in commit order. */
export function walOps(body: GraphWalBody): CommitOp[] {
  if (body.runs === undefined) return body.ops ?? []
  const ops: CommitOp[] = []
  for (const run of body.runs) {
    if ('nodes' in run) expandNodes(run.nodes, ops)
    else if ('rels' in run) expandRels(run.rels, ops)
    else ops.push(run)
  }
  return ops
}

// ---- encoding ---------------------------------------------------------------------------------------

/** Property columns being filled; `at` is the record count so far. */
class ColumnsBuilder {
  readonly keys: string[] = []
  readonly cols: (EncodedValue | null)[][] = []
  private readonly slot = new Map<string, number>()
  private last = -1

  /** Starts the next record. */
  next(): void {
    this.last = -1
  }

  /** Adds the record's value for `key`; false when keys come out of the run's order. */
  add(key: string, value: EncodedValue, at: number): boolean {
    let slot = this.slot.get(key)
    if (slot === undefined) {
      slot = this.keys.length
      this.slot.set(key, slot)
      this.keys.push(key)
      this.cols.push([])
    }
    if (slot <= this.last) return false
    this.last = slot
    const col = this.cols[slot] as (EncodedValue | null)[]
    while (col.length < at) col.push(null)
    col.push(value)
    return true
  }

  /** Takes back the values the record at `at` added (it goes to the next run). */
  undo(at: number): void {
    for (const col of this.cols) if (col.length > at) col.length = at
  }

  finish(count: number): PropertyColumns {
    for (const col of this.cols) while (col.length < count) col.push(null)
    // A key the undone record brought in alone has no value left.
    const keys: string[] = []
    const cols: ValueColumn[] = []
    for (const [i, col] of this.cols.entries())
      if (col.some((v) => v !== null)) {
        keys.push(this.keys[i] as string)
        cols.push(compact(col))
      }
    return { keys, cols }
  }
}

function nodeRun(ops: readonly CommitOp[], from: number, to: number): { run: WalRun; count: number } {
  const props = new ColumnsBuilder()
  const ids: number[] = []
  const labelSets: string[][] = []
  const labels: number[] = []
  const setOf = new Map<readonly number[] | string, number>()
  let count = 0
  for (let i = from; i < to; i++) {
    const op = ops[i] as Extract<CommitOp, { op: 'createNode' }>
    props.next()
    let ordered = true
    let set: number | undefined
    if (op instanceof CreateNodeOp) {
      // Read the node itself: the op's own `props` would build an encoded object per node first.
      const { node, name } = op
      set = setOf.get(node.labels)
      if (set === undefined) {
        set = labelSets.push(node.labels.map(name)) - 1
        setOf.set(node.labels, set)
      }
      node.props.forEach((value, key) => {
        if (ordered) ordered = props.add(name(key), encodeValue(value), count)
      })
    } else {
      const names = op.labels.join('\u0000')
      set = setOf.get(names)
      if (set === undefined) {
        set = labelSets.push(op.labels.slice()) - 1
        setOf.set(names, set)
      }
      for (const key in op.props) if (ordered) ordered = props.add(key, op.props[key] as EncodedValue, count)
    }
    if (!ordered) {
      props.undo(count)
      if (count === 0) return { run: op, count: 1 }
      break
    }
    ids.push(op.id)
    labels.push(set)
    count++
  }
  const run: NodeRun = { ids: idColumn(ids), labelSets, labels: tableColumn(labels), ...props.finish(count) }
  return { run: { nodes: run }, count }
}

function relRun(ops: readonly CommitOp[], from: number, to: number): { run: WalRun; count: number } {
  const props = new ColumnsBuilder()
  const ids: number[] = []
  const types: string[] = []
  const type: number[] = []
  const typeOf = new Map<string, number>()
  const start: number[] = []
  const end: number[] = []
  let count = 0
  for (let i = from; i < to; i++) {
    const op = ops[i] as CreateRel
    props.next()
    let ordered = true
    if (op instanceof CreateRelOp) {
      // The typed values themselves: the op's own `props` would build an encoded object per relationship first.
      const names = op.names
      op.values.forEach((value, key) => {
        if (ordered) ordered = props.add(names.name(key), encodeValue(value), count)
      })
    } else
      for (const key in op.props) if (ordered) ordered = props.add(key, op.props[key] as EncodedValue, count)
    if (!ordered) {
      props.undo(count)
      if (count === 0) return { run: op, count: 1 }
      break
    }
    let t = typeOf.get(op.type)
    if (t === undefined) {
      t = types.push(op.type) - 1
      typeOf.set(op.type, t)
    }
    ids.push(op.id)
    type.push(t)
    start.push(op.start)
    end.push(op.end)
    count++
  }
  const run: RelRun = {
    ids: idColumn(ids),
    types,
    type: tableColumn(type),
    start,
    end,
    ...props.finish(count),
  }
  return { run: { rels: run }, count }
}

function idColumn(ids: number[]): IdColumn {
  const first = ids[0] as number
  for (let i = 1; i < ids.length; i++) if (ids[i] !== first + i) return ids
  return { from: first, n: ids.length }
}

function tableColumn(indexes: number[]): TableColumn {
  const first = indexes[0] as number
  return indexes.every((i) => i === first) ? first : indexes
}

const same = (a: EncodedValue | null, b: EncodedValue | null): boolean => {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a) || Array.isArray(b)) return false
  if ('i' in a) return 'i' in b && a.i === b.i
  if ('f' in a) return 'f' in b && Object.is(a.f, b.f)
  // Temporal values: one tag, one string.
  const [tag, text] = Object.entries(a)[0] ?? []
  return tag !== undefined && (b as Record<string, unknown>)[tag] === text && Object.keys(b).length === 1
}

/** Runs when they hold at most a quarter as many entries as the plain column. */
function compact(col: (EncodedValue | null)[]): ValueColumn {
  const runs: (EncodedValue | number | null)[] = []
  const limit = col.length / 2
  for (let i = 0; i < col.length; ) {
    let j = i + 1
    while (j < col.length && same(col[j] as EncodedValue | null, col[i] as EncodedValue | null)) j++
    runs.push(col[i] as EncodedValue | null, j - i)
    if (runs.length > limit) return col
    i = j
  }
  return { runs }
}

// ---- decoding ---------------------------------------------------------------------------------------

function ids(column: IdColumn): number[] {
  return Array.isArray(column) ? column : Array.from({ length: column.n }, (_, i) => column.from + i)
}

function values(column: ValueColumn, count: number): (EncodedValue | null)[] {
  if (Array.isArray(column)) return column
  const out: (EncodedValue | null)[] = []
  const runs = column.runs
  for (let i = 0; i + 1 < runs.length; i += 2)
    for (let k = 0; k < (runs[i + 1] as number); k++) out.push(runs[i] as EncodedValue | null)
  while (out.length < count) out.push(null)
  return out
}

function propsAt(keys: string[], cols: (EncodedValue | null)[][], at: number): Record<string, EncodedValue> {
  const props: Record<string, EncodedValue> = {}
  for (let k = 0; k < keys.length; k++) {
    const value = (cols[k] as (EncodedValue | null)[])[at]
    if (value !== null && value !== undefined) setOwn(props, keys[k] as string, value)
  }
  return props
}

const tableAt = (column: TableColumn, at: number): number =>
  typeof column === 'number' ? column : (column[at] as number)

function expandNodes(run: NodeRun, out: CommitOp[]): void {
  const list = ids(run.ids)
  const cols = run.cols.map((c) => values(c, list.length))
  for (const [at, id] of list.entries()) {
    const labels = (run.labelSets[tableAt(run.labels, at)] as string[]).slice()
    out.push({ op: 'createNode', id, labels, props: propsAt(run.keys, cols, at) })
  }
}

function expandRels(run: RelRun, out: CommitOp[]): void {
  const list = ids(run.ids)
  const cols = run.cols.map((c) => values(c, list.length))
  for (const [at, id] of list.entries())
    out.push({
      op: 'createRelationship',
      id,
      type: run.types[tableAt(run.type, at)] as string,
      start: run.start[at] as number,
      end: run.end[at] as number,
      props: propsAt(run.keys, cols, at),
    })
}

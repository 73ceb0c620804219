import { isPoint, pointKey } from '../cypher/spatial/point.js'
import { temporalKey } from '../cypher/temporal/compare.js'
import { HashedIds, hashNumber, hashString } from '../hashed-ids.js'
import { addPosting, type IdPostings, removePosting } from '../id-postings.js'
import { IdList } from './id-list.js'
import type { PropertyValue } from './types.js'

/** Map key for equality lookups: integers and integral floats meet (Cypher `1 = 1.0`), lists are not indexed. */
export type IndexKey = string | number | boolean

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

export function indexKey(value: PropertyValue): IndexKey | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (Number.isNaN(value)) return undefined
      // An integral float beyond 2^53 takes the integer's tagged key: 2.0^60 meets 2^60 (Cypher `=` is exact).
      return Number.isSafeInteger(value) || !Number.isInteger(value) ? value : `\u0000i${BigInt(value)}`
    case 'bigint':
      // Beyond 2^53 a number would collide with neighbours; a tagged string keeps the value exact.
      return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : `\u0000i${value}`
    case 'object':
      // Temporal values meet by Cypher equality (one instant in one zone, equal duration components); points
      // by system and coordinates.
      if (Array.isArray(value)) return undefined
      return isPoint(value) ? `\u0000p${pointKey(value)}` : `\u0000t${temporalKey(value)}`
    default:
      return undefined
  }
}

/**
 * True when every node the index answers for `value` holds a value Cypher finds equal to it, so a seek need
 * not compare the candidates again: booleans, floats but NaN and integral ones beyond 2^53, integers within
 * 2^53, and strings that cannot meet a tagged key (`\u0000i…`, `\u0000p…`, `\u0000t…` share the string key space). The rest are checked.
 */
export function indexHitsAreEqual(value: PropertyValue): boolean {
  switch (typeof value) {
    case 'boolean':
      return true
    case 'number':
      return !Number.isNaN(value) && (Number.isSafeInteger(value) || !Number.isInteger(value))
    case 'bigint':
      return value <= MAX_SAFE && value >= -MAX_SAFE
    case 'string':
      return value.charCodeAt(0) !== 0
    default:
      return false
  }
}

const EMPTY: readonly number[] = []

/**
 * The ids of one label's nodes in an Int32Array, in the order they gained the label: 4 bytes a node where a
 * Set entry took about 30, and appending never rehashes. Removal marks a tombstone, compacted once they are
 * a quarter of the list. An id is only ever added when it does not hold the label (the store checks), and
 * an id re-added after removal keeps its old place.
 */
class LabelMembers {
  private readonly ids = new IdList()
  private removed: Set<number> | null = null

  get size(): number {
    return this.ids.length - (this.removed?.size ?? 0)
  }

  add(id: number): void {
    if (this.removed?.delete(id)) return
    this.ids.push(id)
  }

  remove(id: number): void {
    this.removed ??= new Set()
    this.removed.add(id)
    if (this.removed.size > 1024 && this.removed.size * 4 > this.ids.length) this.compact()
  }

  values(): Iterable<number> {
    const ids = this.ids.view()
    const removed = this.removed
    return removed === null || removed.size === 0 ? ids : skipping(ids, removed)
  }

  private compact(): void {
    const removed = this.removed as Set<number>
    let kept = 0
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids.at(i)
      if (!removed.has(id)) this.ids.set(kept++, id)
    }
    this.ids.truncate(kept)
    this.removed = null
  }
}

function* skipping(ids: Int32Array, removed: ReadonlySet<number>): Iterable<number> {
  for (const id of ids) if (!removed.has(id)) yield id
}

/** label -> node ids. */
export class LabelIndex {
  private readonly byLabel = new Map<number, LabelMembers>()

  add(label: number, id: number): void {
    let members = this.byLabel.get(label)
    if (members === undefined) {
      members = new LabelMembers()
      this.byLabel.set(label, members)
    }
    members.add(id)
  }

  remove(label: number, id: number): void {
    this.byLabel.get(label)?.remove(id)
  }

  ids(label: number): Iterable<number> {
    return this.byLabel.get(label)?.values() ?? EMPTY
  }

  count(label: number): number {
    return this.byLabel.get(label)?.size ?? 0
  }
}

/** One (label, key) pair's value -> node ids. */
interface ValuePostings {
  add(key: IndexKey, id: number): void
  remove(key: IndexKey, id: number): void
  ids(key: IndexKey): Iterable<number> | undefined
}

/** For a few records (a transaction's overlay): a Map, with a bare id while a value has one node. */
class MapPostings implements ValuePostings {
  private readonly map = new Map<IndexKey, IdPostings>()

  add(key: IndexKey, id: number): void {
    addPosting(this.map, key, id)
  }

  remove(key: IndexKey, id: number): void {
    removePosting(this.map, key, id)
  }

  ids(key: IndexKey): Iterable<number> | undefined {
    const postings = this.map.get(key)
    return typeof postings === 'number' ? [postings] : postings
  }
}

const hashKey = (key: string | boolean): number => (typeof key === 'string' ? hashString(key) : key ? 1 : 2)

/**
 * For the store (millions of records): hashes and ids in typed arrays, the values read back from the nodes
 * to tell hits from collisions (hashed-ids.ts). Ids come out ascending, as a scan would meet them.
 */
class HashedPostings implements ValuePostings {
  /** Number keys (integers, floats) kept in the table: a hit needs no record read back. */
  private readonly numbers = new HashedIds<number>(hashNumber, () => true, true)
  private readonly others: HashedIds<string | boolean>

  constructor(valueAt: (id: number) => PropertyValue | undefined) {
    this.others = new HashedIds<string | boolean>(hashKey, (id, key) => {
      const value = valueAt(id)
      return value !== undefined && indexKey(value) === key
    })
  }

  add(key: IndexKey, id: number): void {
    if (typeof key === 'number') this.numbers.add(key === 0 ? 0 : key, id)
    else this.others.add(key, id)
  }

  remove(key: IndexKey, id: number): void {
    if (typeof key === 'number') this.numbers.remove(key === 0 ? 0 : key, id)
    else this.others.remove(key, id)
  }

  ids(key: IndexKey): Iterable<number> | undefined {
    const ids = typeof key === 'number' ? this.numbers.get(key === 0 ? 0 : key) : this.others.get(key)
    return ids !== undefined && ids.length > 1 ? ids.sort((a, b) => a - b) : ids
  }
}

/** A node's current value of a property key, for indexes that keep hashes instead of values. */
export type NodeValueOf = (id: number, key: number) => PropertyValue | undefined

/**
 * (label, key, value) -> node ids, kept for every label/key pair so the planner can seek on any equality.
 */
export class PropertyIndex {
  private readonly byLabel = new Map<number, Map<number, ValuePostings>>()

  /**
   * `onDemand`: a (label, key) pair is indexed only once `activate` was called for it (the store activates a
   * pair on its first equality lookup); writes to other pairs cost one map lookup per label. Otherwise every
   * pair is indexed as it is written (transaction overlays: few records, read soon). With `valueAt` (the
   * store), pairs keep hashes in typed arrays and read values back from the nodes; without, Maps of values.
   */
  constructor(
    private readonly onDemand = false,
    private readonly valueAt?: NodeValueOf,
  ) {}

  private postings(key: number): ValuePostings {
    const valueAt = this.valueAt
    return valueAt === undefined ? new MapPostings() : new HashedPostings((id) => valueAt(id, key))
  }

  isActive(label: number, key: number): boolean {
    return this.byLabel.get(label)?.has(key) === true
  }

  /** Starts indexing the pair (empty: the caller adds the current entries). */
  activate(label: number, key: number): void {
    let byKey = this.byLabel.get(label)
    if (byKey === undefined) {
      byKey = new Map()
      this.byLabel.set(label, byKey)
    }
    if (!byKey.has(key)) byKey.set(key, this.postings(key))
  }

  /** The keys indexed for `label`, or undefined when none is (on-demand indexes skip such labels whole). */
  keysOf(label: number): ReadonlyMap<number, unknown> | undefined {
    return this.byLabel.get(label)
  }

  add(label: number, key: number, value: PropertyValue, id: number): void {
    const k = indexKey(value)
    if (k === undefined) return
    let byKey = this.byLabel.get(label)
    if (byKey === undefined) {
      if (this.onDemand) return
      byKey = new Map()
      this.byLabel.set(label, byKey)
    }
    let byValue = byKey.get(key)
    if (byValue === undefined) {
      if (this.onDemand) return
      byValue = this.postings(key)
      byKey.set(key, byValue)
    }
    byValue.add(k, id)
  }

  remove(label: number, key: number, value: PropertyValue, id: number): void {
    const k = indexKey(value)
    if (k === undefined) return
    this.byLabel.get(label)?.get(key)?.remove(k, id)
  }

  ids(label: number, key: number, value: PropertyValue): Iterable<number> {
    const k = indexKey(value)
    if (k === undefined) return EMPTY
    return this.byLabel.get(label)?.get(key)?.ids(k) ?? EMPTY
  }
}

/** Both indexes over one set of node records; used by the store and, for touched records, by overlays. */
export class NodeIndexes {
  readonly labels = new LabelIndex()
  readonly props: PropertyIndex

  /** `onDemand`: property pairs are indexed from their first lookup on; `valueAt`: see PropertyIndex. */
  constructor(
    private readonly onDemand = false,
    valueAt?: NodeValueOf,
  ) {
    this.props = new PropertyIndex(onDemand, valueAt)
  }

  // forEach, not for…of: the store's property maps walk their entries without allocating.
  addNode(id: number, labels: readonly number[], props: ReadonlyMap<number, PropertyValue>): void {
    for (const label of labels) {
      this.labels.add(label, id)
      if (this.skips(label)) continue
      props.forEach((value, key) => {
        this.props.add(label, key, value, id)
      })
    }
  }

  removeNode(id: number, labels: readonly number[], props: ReadonlyMap<number, PropertyValue>): void {
    for (const label of labels) {
      this.labels.remove(label, id)
      if (this.skips(label)) continue
      props.forEach((value, key) => {
        this.props.remove(label, key, value, id)
      })
    }
  }

  /** True when no property of `label` is indexed (only ever for on-demand indexes). */
  private skips(label: number): boolean {
    return this.onDemand && this.props.keysOf(label) === undefined
  }

  setProperty(
    id: number,
    labels: readonly number[],
    key: number,
    before: PropertyValue | undefined,
    after: PropertyValue | undefined,
  ): void {
    for (const label of labels) {
      if (before !== undefined) this.props.remove(label, key, before, id)
      if (after !== undefined) this.props.add(label, key, after, id)
    }
  }

  addLabel(id: number, label: number, props: ReadonlyMap<number, PropertyValue>): void {
    this.labels.add(label, id)
    for (const [key, value] of props) this.props.add(label, key, value, id)
  }

  removeLabel(id: number, label: number, props: ReadonlyMap<number, PropertyValue>): void {
    this.labels.remove(label, id)
    for (const [key, value] of props) this.props.remove(label, key, value, id)
  }
}

import type { PointValue } from '../cypher/spatial/point.js'
import type { TemporalValue } from '../cypher/temporal/values.js'
import { Dictionary } from './dictionary.js'

/**
 * Record shapes shared by the published store and transaction overlays.
 *
 * Integers are `bigint` (exact 64-bit), floats are `number`: the two never mix by accident and the
 * Cypher integer/float distinction survives storage and the redo log.
 */
export type ScalarProperty = boolean | bigint | number | string | TemporalValue | PointValue
/** A stored property: a scalar or a list of scalars (Cypher forbids maps and nested lists as properties). */
export type PropertyValue = ScalarProperty | ScalarProperty[]

export interface NodeRecord {
  readonly id: number
  /** Interned label ids, unique, in insertion order. */
  labels: number[]
  /** Interned key id -> value. */
  props: Map<number, PropertyValue>
  /** Outgoing relationship ids. */
  out: number[]
  /** Incoming relationship ids. */
  in: number[]
}

export interface RelationshipRecord {
  readonly id: number
  readonly type: number
  readonly start: number
  readonly end: number
  props: Map<number, PropertyValue>
}

/** Read access to one consistent version of a graph (the published store or a transaction overlay). */
export interface GraphReader {
  readonly names: Interner
  node(id: number): NodeRecord | undefined
  /** Relationship type id, or -1 when the relationship does not exist. */
  relType(id: number): number
  relStart(id: number): number
  relEnd(id: number): number
  relProps(id: number): ReadonlyMap<number, PropertyValue> | undefined
  /** One property of a relationship, without building its property map (optional: relProps answers too). */
  relProperty?(id: number, key: number): PropertyValue | undefined
  allNodeIds(): Iterable<number>
  allRelIds(): Iterable<number>
  labelNodeIds(label: number): Iterable<number>
  /** Nodes carrying `label` whose property `key` equals `value` (index-key equality). */
  propertyNodeIds(label: number, key: number, value: PropertyValue): Iterable<number>
  labelCount(label: number): number
  nodeCount(): number
  relCount(): number
  /** Live relationships of one type, from a counter (the published store; absent elsewhere). */
  relTypeCount?(type: number): number
}

/** Interns label, relationship-type and property-key names: records hold small integers, not strings. */
export class Interner {
  private readonly names = new Dictionary<string>()

  id(name: string): number {
    return this.names.number(name, name)
  }

  /** The id of a name already seen, or -1: lookups must not grow the table. */
  lookup(name: string): number {
    return this.names.known(name) ?? -1
  }

  /** How many names are interned: ids run from 0 to size - 1. */
  get size(): number {
    return this.names.values.length
  }

  name(id: number): string {
    const name = this.names.values[id]
    if (name === undefined) throw new Error(`unknown interned id ${id}`)
    return name
  }
}

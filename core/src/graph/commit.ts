import { decodeTaggedValue, encodeTaggedValue } from '../cypher/tagged-value.js'
import type { TemporalTag } from '../cypher/temporal/tagged.js'
import { setOwn } from '../own-key.js'
import type { Interner, PropertyValue, ScalarProperty } from './types.js'

/**
 * A property value in JSON. Integers and floats are tagged so the distinction survives the WAL
 * (`1.0` would otherwise come back as the integer 1): `{"i":"42"}`, `{"f":1.5}`, `{"f":"NaN"}`.
 * Strings, booleans and lists are plain JSON. Temporal values (record format V2) are their one-key tagged
 * form, as in query results: `{"$date":"2015-07-21"}`.
 */
export type EncodedScalar =
  | string
  | boolean
  | { i: string }
  | { f: number | 'NaN' | 'Infinity' | '-Infinity' }
  | Partial<Record<TemporalTag, string>>
  | { $point: Record<string, string | number> }
export type EncodedValue = EncodedScalar | EncodedScalar[]

export type CommitOp =
  | { op: 'createNode'; id: number; labels: string[]; props: Record<string, EncodedValue> }
  | { op: 'deleteNode'; id: number }
  | { op: 'addLabel'; id: number; label: string }
  | { op: 'removeLabel'; id: number; label: string }
  | { op: 'setNodeProperty'; id: number; key: string; value: EncodedValue }
  | { op: 'removeNodeProperty'; id: number; key: string }
  | CreateRelationshipOp
  | { op: 'deleteRelationship'; id: number }
  | { op: 'setRelationshipProperty'; id: number; key: string; value: EncodedValue }
  | { op: 'removeRelationshipProperty'; id: number; key: string }

export interface CreateRelationshipOp {
  op: 'createRelationship'
  id: number
  type: string
  start: number
  end: number
  props: Record<string, EncodedValue>
}

/** The redo record of one write transaction: replaying `ops` in order reproduces it exactly, ids included. */
export interface CommitRecord {
  ops: CommitOp[]
  /** Set by `Transaction.prepare` (see CREATED); a symbol key, so no part of the record's JSON. */
  [CREATED]?: CreatedNodeLookup
}

/** A node as its transaction leaves it: interned labels, typed values. */
export interface CreatedNode {
  readonly labels: readonly number[]
  readonly props: ReadonlyMap<number, PropertyValue>
}

/**
 * The nodes a prepared commit created, so publishing adopts them instead of decoding their ops again. Under
 * a symbol rather than a plain field: the ops are what the WAL holds, and replay (ops only) gives the same
 * graph. (A WeakMap did this before; its insert per commit and its ephemerons cost every single write.)
 */
export const CREATED: unique symbol = Symbol('created nodes')

/** The created nodes of a commit by id (undefined for an id it did not create, or created then deleted). */
export interface CreatedNodeLookup {
  get(id: number): CreatedNode | undefined
}

/**
 * A `createNode` op whose labels and properties are encoded when first read: by the WAL (JSON.stringify calls
 * `toJSON`, before the commit publishes) or by replay. An ephemeral engine, record history and derived indexes
 * read only `op` and `id`, so a bulk create in memory never builds an encoded copy of every node. It reads
 * the node as its transaction leaves it; later ops of the same commit on it only assign, so replaying them
 * over that state gives the same node.
 */
export class CreateNodeOp {
  readonly op = 'createNode' as const
  private encoded: { labels: string[]; props: Record<string, EncodedValue> } | undefined

  constructor(
    readonly id: number,
    /** Read as it is by the log's columnar encoding (kernel/wal-graph-body.ts). */
    readonly node: CreatedNode,
    readonly name: (id: number) => string,
  ) {}

  private encode(): { labels: string[]; props: Record<string, EncodedValue> } {
    this.encoded ??= {
      labels: this.node.labels.map(this.name),
      props: encodeProps(this.node.props, this.name),
    }
    return this.encoded
  }

  get labels(): string[] {
    return this.encode().labels
  }

  get props(): Record<string, EncodedValue> {
    return this.encode().props
  }

  toJSON(): { op: 'createNode'; id: number; labels: string[]; props: Record<string, EncodedValue> } {
    const { labels, props } = this.encode()
    return { op: 'createNode', id: this.id, labels, props }
  }

  /**
   * The op as JSON text, written straight from the node: what `JSON.stringify(op)` gives (keys of the props
   * in insertion order), without the encoded copy and its tagged-value objects (the WAL's hottest path).
   */
  json(): string {
    const name = this.name
    const node = this.node
    let text = `{"op":"createNode","id":${this.id},"labels":[`
    const labels = node.labels
    for (let i = 0; i < labels.length; i++) text += `${i > 0 ? ',' : ''}${JSON.stringify(name(labels[i]!))}`
    text += '],"props":{'
    let first = true
    node.props.forEach((value, key) => {
      text += `${first ? '' : ','}${JSON.stringify(name(key))}:${valueJson(value)}`
      first = false
    })
    return `${text}}}`
  }
}

/**
 * A `createRelationship` op whose properties are encoded when first read (the WAL's JSON, replay, a follower):
 * publishing (GraphStore.applyCommit) and the log's columns read the typed values as they are, so a bulk load
 * of relationships builds no encoded copy of each one's properties nor decodes it again. Like CreateNodeOp it
 * reads the relationship as its transaction leaves it; later ops of the same commit on it only assign.
 */
export class CreateRelOp implements CreateRelationshipOp {
  readonly op = 'createRelationship' as const
  private encoded: Record<string, EncodedValue> | undefined

  constructor(
    readonly id: number,
    readonly type: string,
    readonly start: number,
    readonly end: number,
    /** The typed properties by key id in `names` (read as they are by publish and the log's columns). */
    readonly values: ReadonlyMap<number, PropertyValue>,
    /** The name table of the store the transaction overlays: only that store may take `values` as they are. */
    readonly names: Interner,
  ) {}

  get props(): Record<string, EncodedValue> {
    this.encoded ??= encodeProps(this.values, (id) => this.names.name(id))
    return this.encoded
  }

  toJSON(): CreateRelationshipOp {
    const { op, id, type, start, end, props } = this
    return { op, id, type, start, end, props }
  }
}

/** Property `key` of a created relationship's op, encoded: without encoding the others of a CreateRelOp. */
export function createdRelProperty(op: CreateRelationshipOp, key: string): EncodedValue | undefined {
  if (!(op instanceof CreateRelOp)) return op.props[key]
  // By the key's id: the seed index asks this of every created relationship (no closure, no scan).
  const id = op.names.lookup(key)
  const value = id < 0 ? undefined : op.values.get(id)
  return value === undefined ? undefined : encodeValue(value)
}

function scalarJson(value: ScalarProperty): string {
  switch (typeof value) {
    case 'bigint':
      return `{"i":"${value}"}`
    case 'number':
      return Number.isFinite(value) ? `{"f":${value}}` : `{"f":"${value}"}`
    case 'boolean':
      return value ? 'true' : 'false'
    case 'object':
      return JSON.stringify(encodeTaggedValue(value))
    default:
      return JSON.stringify(value)
  }
}

/** `JSON.stringify(encodeValue(value))`, written directly. */
export function valueJson(value: PropertyValue): string {
  if (!Array.isArray(value)) return scalarJson(value)
  let text = '['
  for (let i = 0; i < value.length; i++) text += `${i > 0 ? ',' : ''}${scalarJson(value[i]!)}`
  return `${text}]`
}

/** `JSON.stringify(ops)`: created nodes written directly, the other ops (small plain objects) as usual. */
export function commitOpsJson(ops: readonly CommitOp[]): string {
  let text = '['
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!
    text += `${i > 0 ? ',' : ''}${op instanceof CreateNodeOp ? op.json() : JSON.stringify(op)}`
  }
  return `${text}]`
}

function encodeScalar(value: ScalarProperty): EncodedScalar {
  switch (typeof value) {
    case 'bigint':
      return { i: value.toString() }
    case 'number':
      return { f: Number.isFinite(value) ? value : (String(value) as 'NaN' | 'Infinity' | '-Infinity') }
    case 'object':
      return encodeTaggedValue(value) as EncodedScalar
    default:
      return value
  }
}

export function encodeValue(value: PropertyValue): EncodedValue {
  return Array.isArray(value) ? value.map(encodeScalar) : encodeScalar(value)
}

function decodeScalar(value: EncodedScalar): ScalarProperty {
  if (typeof value === 'string' || typeof value === 'boolean') return value
  if ('i' in value) return BigInt(value.i as string)
  if ('f' in value) return typeof value.f === 'number' ? value.f : Number(value.f)
  const tagged = decodeTaggedValue(value as Record<string, unknown>)
  if (tagged === undefined) throw new Error(`unknown encoded property value ${JSON.stringify(value)}`)
  return tagged
}

export function decodeValue(value: EncodedValue): PropertyValue {
  return Array.isArray(value) ? value.map(decodeScalar) : decodeScalar(value)
}

export function encodeProps(
  props: ReadonlyMap<number, PropertyValue>,
  name: (id: number) => string,
): Record<string, EncodedValue> {
  const out: Record<string, EncodedValue> = {}
  props.forEach((value, key) => {
    setOwn(out, name(key), encodeValue(value))
  })
  return out
}

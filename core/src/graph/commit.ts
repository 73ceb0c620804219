import { setOwn } from '../own-key.js'
import type { PropertyValue, ScalarProperty } from './types.js'

/**
 * A property value in JSON. Integers and floats are tagged so the distinction survives the WAL
 * (`1.0` would otherwise come back as the integer 1): `{"i":"42"}`, `{"f":1.5}`, `{"f":"NaN"}`.
 * Strings, booleans and lists are plain JSON.
 */
export type EncodedScalar =
  | string
  | boolean
  | { i: string }
  | { f: number | 'NaN' | 'Infinity' | '-Infinity' }
export type EncodedValue = EncodedScalar | EncodedScalar[]

export type CommitOp =
  | { op: 'createNode'; id: number; labels: string[]; props: Record<string, EncodedValue> }
  | { op: 'deleteNode'; id: number }
  | { op: 'addLabel'; id: number; label: string }
  | { op: 'removeLabel'; id: number; label: string }
  | { op: 'setNodeProperty'; id: number; key: string; value: EncodedValue }
  | { op: 'removeNodeProperty'; id: number; key: string }
  | {
      op: 'createRelationship'
      id: number
      type: string
      start: number
      end: number
      props: Record<string, EncodedValue>
    }
  | { op: 'deleteRelationship'; id: number }
  | { op: 'setRelationshipProperty'; id: number; key: string; value: EncodedValue }
  | { op: 'removeRelationshipProperty'; id: number; key: string }

/** The redo record of one write transaction: replaying `ops` in order reproduces it exactly, ids included. */
export interface CommitRecord {
  ops: CommitOp[]
}

/** A node as its transaction leaves it: interned labels, typed values. */
export interface CreatedNode {
  readonly labels: readonly number[]
  readonly props: ReadonlyMap<number, PropertyValue>
}

/**
 * The nodes a prepared commit created, by record, so publishing adopts them instead of decoding their ops
 * again. Beside the record rather than in it: the record is what the WAL holds, and replay (ops only) gives
 * the same graph.
 */
export const createdNodes = new WeakMap<CommitRecord, CreatedNodeLookup>()

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
}

function encodeScalar(value: ScalarProperty): EncodedScalar {
  switch (typeof value) {
    case 'bigint':
      return { i: value.toString() }
    case 'number':
      return { f: Number.isFinite(value) ? value : (String(value) as 'NaN' | 'Infinity' | '-Infinity') }
    default:
      return value
  }
}

export function encodeValue(value: PropertyValue): EncodedValue {
  return Array.isArray(value) ? value.map(encodeScalar) : encodeScalar(value)
}

function decodeScalar(value: EncodedScalar): ScalarProperty {
  if (typeof value === 'string' || typeof value === 'boolean') return value
  if ('i' in value) return BigInt(value.i)
  return typeof value.f === 'number' ? value.f : Number(value.f)
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

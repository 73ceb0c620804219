import {
  crsBySrid,
  DateTimeValue,
  DateValue,
  DetachedNode,
  DetachedPath,
  DetachedRelationship,
  type DetachedValue,
  isPoint,
  LocalDateTimeValue,
  LocalTimeValue,
  nodeElementId,
  PointValue,
  TemporalFromFields,
  type TemporalValue,
  TimeValue,
} from '@service/core/cypher'
import type { Packer } from './packstream/packer.js'
import { type PackValue, Sig, Structure } from './packstream/structure.js'

/** A parameter the engine cannot take (a graph structure, or a type it has no values of yet). */
export class ParameterTypeError extends Error {
  override readonly name = 'ParameterTypeError'
}

const STRUCTURE_NAMES: Record<number, string> = {
  [Sig.Node]: 'Node',
  [Sig.Relationship]: 'Relationship',
  [Sig.UnboundRelationship]: 'UnboundRelationship',
  [Sig.Path]: 'Path',
  [Sig.Date]: 'Date',
  [Sig.Time]: 'Time',
  [Sig.LocalTime]: 'LocalTime',
  [Sig.DateTime]: 'DateTime',
  [Sig.DateTimeZoneId]: 'DateTimeZoneId',
  [Sig.LocalDateTime]: 'LocalDateTime',
  [Sig.Duration]: 'Duration',
  [Sig.Point2D]: 'Point2D',
  [Sig.Point3D]: 'Point3D',
}

/**
 * Packs a result value as Bolt 5 sends it: nodes and relationships with numeric ids and element ids equal
 * to ours (`node--7`), paths as their distinct nodes, unbound relationships and the index sequence.
 */
export function packResultValue(packer: Packer, value: DetachedValue): void {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) {
    packer.pack(value as PackValue)
    return
  }
  if (Array.isArray(value)) {
    packer.listHeader(value.length)
    for (const item of value) packResultValue(packer, item)
    return
  }
  if (value instanceof Map) {
    packProperties(packer, value)
    return
  }
  if (value instanceof DetachedNode) {
    packNode(packer, value)
    return
  }
  if (value instanceof DetachedRelationship) {
    packRelationship(packer, value)
    return
  }
  if (value instanceof DetachedPath) {
    packPath(packer, value)
    return
  }
  if (isPoint(value)) {
    packPoint(packer, value)
    return
  }
  packTemporal(packer, value)
}

/** Bolt's Point2D (`X`: srid, x, y) and Point3D (`Y`: srid, x, y, z); x is a geographic point's longitude. */
function packPoint(packer: Packer, point: PointValue): void {
  const signature = point.coords.length === 3 ? Sig.Point3D : Sig.Point2D
  packer.structure(signature, [BigInt(point.srid), ...point.coords])
}

/** Bolt 5 temporal structures (DateTime as UTC epoch seconds, the `utc` form of 4.4). */
function packTemporal(packer: Packer, value: TemporalValue): void {
  const [signature, fields] = temporalStructure(value)
  packer.structure(signature, fields)
}

function temporalStructure(value: TemporalValue): [number, PackValue[]] {
  if (value instanceof DateValue) return [Sig.Date, [BigInt(value.epochDay)]]
  if (value instanceof LocalTimeValue) return [Sig.LocalTime, [BigInt(value.nanosecondOfDay)]]
  if (value instanceof TimeValue)
    return [Sig.Time, [BigInt(value.nanosecondOfDay), BigInt(value.offsetSeconds)]]
  if (value instanceof LocalDateTimeValue)
    return [Sig.LocalDateTime, [value.epochSeconds, BigInt(value.nanosecond)]]
  if (value instanceof DateTimeValue) {
    return value.zone === null
      ? [Sig.DateTime, [value.epochSeconds, BigInt(value.nanosecond), BigInt(value.offsetSeconds)]]
      : [Sig.DateTimeZoneId, [value.epochSeconds, BigInt(value.nanosecond), value.zone]]
  }
  return [Sig.Duration, [value.months, value.days, value.seconds, BigInt(value.nanoseconds)]]
}

function packProperties(packer: Packer, map: Map<string, DetachedValue>): void {
  packer.mapHeader(map.size)
  for (const [key, item] of map) {
    packer.string(key)
    packResultValue(packer, item)
  }
}

function packNode(packer: Packer, node: DetachedNode): void {
  packer.structureHeader(Sig.Node, 4)
  packer.int(node.id)
  packer.listHeader(node.labels.length)
  for (const label of node.labels) packer.string(label)
  packProperties(packer, node.properties)
  packer.string(node.elementId)
}

function packRelationship(packer: Packer, rel: DetachedRelationship): void {
  packer.structureHeader(Sig.Relationship, 8)
  packer.int(rel.id)
  packer.int(rel.startId)
  packer.int(rel.endId)
  packer.string(rel.type)
  packProperties(packer, rel.properties)
  packer.string(rel.elementId)
  packer.string(nodeElementId(rel.startId))
  packer.string(nodeElementId(rel.endId))
}

function packPath(packer: Packer, path: DetachedPath): void {
  const nodeIndex = new Map<number, number>()
  const nodes: DetachedNode[] = []
  for (const node of path.nodes) {
    if (nodeIndex.has(node.id)) continue
    nodeIndex.set(node.id, nodes.length)
    nodes.push(node)
  }
  const relIndex = new Map<number, number>()
  const rels: DetachedRelationship[] = []
  for (const rel of path.relationships) {
    if (relIndex.has(rel.id)) continue
    relIndex.set(rel.id, rels.length)
    rels.push(rel)
  }
  // Per step: the relationship (1-based; negative when walked against its direction), then the next node.
  const indices: number[] = []
  path.relationships.forEach((rel, i) => {
    const from = path.nodes[i] as DetachedNode
    const to = path.nodes[i + 1] as DetachedNode
    const step = (relIndex.get(rel.id) as number) + 1
    indices.push(rel.startId === from.id ? step : -step, nodeIndex.get(to.id) as number)
  })
  packer.structureHeader(Sig.Path, 3)
  packer.listHeader(nodes.length)
  for (const node of nodes) packNode(packer, node)
  packer.listHeader(rels.length)
  for (const rel of rels) {
    packer.structureHeader(Sig.UnboundRelationship, 4)
    packer.int(rel.id)
    packer.string(rel.type)
    packProperties(packer, rel.properties)
    packer.string(rel.elementId)
  }
  packer.listHeader(indices.length)
  for (const index of indices) packer.int(index)
}

/**
 * A decoded parameter as the engine binds it: integers stay `bigint` (exact), floats `number`, maps plain
 * objects (without a prototype, so no key is special), temporal and spatial structures the engine's values.
 * Graph structures are refused as Neo4j refuses them.
 */
export function parameterValue(value: PackValue, path: string): unknown {
  if (value === null || typeof value !== 'object') return value
  if (value instanceof Uint8Array) {
    throw new ParameterTypeError(`parameter ${path} is a byte array, which Cypher here has no type for`)
  }
  if (Array.isArray(value)) return value.map((item, i) => parameterValue(item, `${path}[${i}]`))
  if (value instanceof Map) {
    const out: Record<string, unknown> = Object.create(null)
    for (const [key, item] of value) out[key] = parameterValue(item, `${path}.${key}`)
    return out
  }
  const temporal = temporalParameter(value as Structure, path)
  if (temporal !== null) return temporal
  const point = pointParameter(value as Structure, path)
  if (point !== null) return point
  const name = STRUCTURE_NAMES[(value as Structure).signature] ?? 'structure'
  throw new ParameterTypeError(
    `parameter ${path} is a ${name}, which this server does not take as a parameter`,
  )
}

/** A temporal structure as the engine's value; null for any other structure. */
function temporalParameter(structure: Structure, path: string): TemporalValue | null {
  const { signature, fields } = structure
  const ints = (count: number): bigint[] => {
    const taken = fields.slice(0, count)
    if (fields.length < count || taken.some((field) => typeof field !== 'bigint'))
      throw new ParameterTypeError(`parameter ${path}: a malformed ${STRUCTURE_NAMES[signature]} structure`)
    return taken as bigint[]
  }
  const zone = (): string => {
    const id = fields[2]
    if (typeof id !== 'string') throw new ParameterTypeError(`parameter ${path}: a zone id must be a string`)
    return id
  }
  switch (signature) {
    case Sig.Date:
      return TemporalFromFields.date(...(ints(1) as [bigint]))
    case Sig.LocalTime:
      return TemporalFromFields.localTime(...(ints(1) as [bigint]))
    case Sig.Time:
      return TemporalFromFields.time(...(ints(2) as [bigint, bigint]))
    case Sig.LocalDateTime:
      return TemporalFromFields.localDateTime(...(ints(2) as [bigint, bigint]))
    case Sig.DateTime:
      return TemporalFromFields.dateTime(...(ints(3) as [bigint, bigint, bigint]))
    case Sig.DateTimeZoneId: {
      const [seconds, nanos] = ints(2) as [bigint, bigint]
      return TemporalFromFields.dateTimeInZone(seconds, nanos, zone())
    }
    case Sig.Duration:
      return TemporalFromFields.duration(...(ints(4) as [bigint, bigint, bigint, bigint]))
  }
  return null
}

/** A Point2D or Point3D structure as the engine's point; null for any other structure. */
function pointParameter(structure: Structure, path: string): PointValue | null {
  const { signature, fields } = structure
  if (signature !== Sig.Point2D && signature !== Sig.Point3D) return null
  const name = STRUCTURE_NAMES[signature]
  const [srid, ...coords] = fields
  const count = signature === Sig.Point2D ? 2 : 3
  if (typeof srid !== 'bigint' || coords.length !== count)
    throw new ParameterTypeError(`parameter ${path}: a malformed ${name} structure`)
  const crs = crsBySrid(Number(srid))
  if (crs === undefined || crs.dimension !== count)
    throw new ParameterTypeError(`parameter ${path}: a ${name} with unknown SRID ${srid}`)
  const numbers = coords.map((c) =>
    typeof c === 'number' ? c : typeof c === 'bigint' ? Number(c) : Number.NaN,
  )
  if (numbers.some((c) => !Number.isFinite(c)))
    throw new ParameterTypeError(`parameter ${path}: a ${name} coordinate must be a finite number`)
  try {
    return new PointValue(crs, numbers)
  } catch (error) {
    throw new ParameterTypeError(`parameter ${path}: ${(error as Error).message}`)
  }
}

export { Structure }

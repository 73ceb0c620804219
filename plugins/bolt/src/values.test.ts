import {
  CRSS,
  type Crs,
  type DateTimeValue,
  DateValue,
  DetachedNode,
  DetachedPath,
  DetachedRelationship,
  DurationValue,
  PointValue,
  TemporalFromFields,
} from '@service/core/cypher'
import { describe, expect, it } from 'vitest'
import { Packer } from './packstream/packer.js'
import { type PackValue, Sig, Structure } from './packstream/structure.js'
import { Unpacker } from './packstream/unpacker.js'
import { ParameterTypeError, packResultValue, parameterValue } from './values.js'

const roundTrip = (value: Parameters<typeof packResultValue>[1]): PackValue => {
  const packer = new Packer()
  packResultValue(packer, value)
  return new Unpacker(packer.finish()).unpack()
}

describe('Bolt values', () => {
  it('packs a path as distinct nodes, unbound relationships and signed indices', () => {
    const a = new DetachedNode(1, ['A'], new Map())
    const b = new DetachedNode(2, ['B'], new Map())
    const ab = new DetachedRelationship(10, 'R', 1, 2, new Map([['w', 1n]]))
    // a -[ab]-> b <-[ab]- a: walked back against its direction, and node a repeated.
    const path = roundTrip(new DetachedPath([a, b, a], [ab, ab])) as Structure
    expect(path.signature).toBe(Sig.Path)
    const [nodes, rels, indices] = path.fields as [Structure[], Structure[], bigint[]]
    expect(nodes.map((n) => n.fields[3])).toEqual(['node--1', 'node--2'])
    expect(rels).toHaveLength(1)
    expect(rels[0]?.signature).toBe(Sig.UnboundRelationship)
    expect(rels[0]?.fields).toEqual([10n, 'R', new Map([['w', 1n]]), 'relationship--10'])
    expect(indices).toEqual([1n, 1n, -1n, 0n])
  })

  it('packs a relationship with its end nodes as ids and element ids', () => {
    const rel = roundTrip(new DetachedRelationship(3, 'KNOWS', 4, 5, new Map())) as Structure
    expect(rel.signature).toBe(Sig.Relationship)
    expect(rel.fields).toEqual([3n, 4n, 5n, 'KNOWS', new Map(), 'relationship--3', 'node--4', 'node--5'])
  })

  it('packs temporal values as Bolt 5 structures and takes them back as parameters', () => {
    const date = TemporalFromFields.date(19_000n)
    expect(date).toBeInstanceOf(DateValue)
    const packedDate = roundTrip(date) as Structure
    expect([packedDate.signature, packedDate.fields]).toEqual([Sig.Date, [19_000n]])

    const zoned = TemporalFromFields.dateTimeInZone(1_700_000_000n, 5n, 'Europe/Paris')
    const packedZoned = roundTrip(zoned) as Structure
    expect(packedZoned.signature).toBe(Sig.DateTimeZoneId)
    expect(packedZoned.fields).toEqual([1_700_000_000n, 5n, 'Europe/Paris'])
    const back = parameterValue(packedZoned, '$z') as DateTimeValue
    expect(back.epochSeconds).toBe(1_700_000_000n)
    expect(back.offsetSeconds).toBe(3600)

    const offset = roundTrip(TemporalFromFields.dateTime(0n, 0n, -3600n)) as Structure
    expect([offset.signature, offset.fields]).toEqual([Sig.DateTime, [0n, 0n, -3600n]])

    const duration = roundTrip(new DurationValue(14n, 3n, -1n, 5)) as Structure
    expect([duration.signature, duration.fields]).toEqual([Sig.Duration, [14n, 3n, -1n, 5n]])
    for (const [signature, fields] of [
      [Sig.LocalTime, [3_600_000_000_123n]],
      [Sig.Time, [1n, 7200n]],
      [Sig.LocalDateTime, [-1n, 999_999_999n]],
    ] as const) {
      const value = parameterValue(new Structure(signature, [...fields]), '$t')
      expect((roundTrip(value as never) as Structure).fields).toEqual(fields)
    }
  })

  it('packs points as Point2D and Point3D and takes them back as parameters', () => {
    const wgs = CRSS.find((c) => c.srid === 4326) as Crs
    const cartesian3d = CRSS.find((c) => c.srid === 9157) as Crs
    const flat = roundTrip(new PointValue(wgs, [12.56, 55.67])) as Structure
    expect([flat.signature, flat.fields]).toEqual([Sig.Point2D, [4326n, 12.56, 55.67]])
    const solid = roundTrip(new PointValue(cartesian3d, [1, 2, 3])) as Structure
    expect([solid.signature, solid.fields]).toEqual([Sig.Point3D, [9157n, 1, 2, 3]])
    const back = parameterValue(flat, '$p') as PointValue
    expect([back.crs.name, back.x, back.y]).toEqual(['wgs-84', 12.56, 55.67])
    expect((parameterValue(solid, '$p') as PointValue).z).toBe(3)
    expect(() => parameterValue(new Structure(Sig.Point2D, [4979n, 1, 2]), '$p')).toThrow(/unknown SRID/)
    expect(() => parameterValue(new Structure(Sig.Point2D, [4326n, 'x', 2]), '$p')).toThrow(/finite number/)
    expect(() => parameterValue(new Structure(Sig.Point2D, [4326n, 0, 91]), '$p')).toThrow(/latitude/)
  })

  it('refuses graph structures, byte arrays and malformed temporal structures as parameters', () => {
    expect(() => parameterValue(new Structure(Sig.Node, [1n, [], new Map(), 'node--1']), '$n')).toThrow(
      /is a Node/,
    )
    expect(() => parameterValue(new Uint8Array([1]), '$b')).toThrow(ParameterTypeError)
    expect(() => parameterValue(new Structure(Sig.Date, ['x']), '$d')).toThrow(/malformed Date/)
    expect(() => parameterValue(new Structure(Sig.LocalTime, [-1n]), '$t')).toThrow(/out of range/)
    const params = parameterValue(new Map([['__proto__', 1n]]), '$m') as Record<string, unknown>
    expect(Object.getPrototypeOf(params)).toBeNull()
    expect(Object.entries(params)).toEqual([['__proto__', 1n]])
  })
})

describe('Bolt failures', () => {
  it('maps engine errors by code, unavailable ones without a code of their own as transient', async () => {
    const { EngineError } = await import('@service/core')
    const { thrownFailure } = await import('./failures.js')
    expect(thrownFailure(new EngineError('STORAGE_FOLLOWER_LAGGING', 'lag')).code).toBe(
      'Neo.TransientError.Transaction.BookmarkTimeout',
    )
    expect(thrownFailure(new EngineError('OVERLOADED', 'busy')).code).toBe(
      'Neo.TransientError.Request.ResourceExhaustion',
    )
    expect(thrownFailure(new EngineError('REF_WRITE_BACKPRESSURE', 'wait')).code).toBe(
      'Neo.TransientError.General.DatabaseUnavailable',
    )
    expect(thrownFailure(new EngineError('DURABILITY_FAILED', 'disk')).code).toBe(
      'Neo.DatabaseError.Transaction.TransactionCommitFailed',
    )
    const unknown = thrownFailure(new Error('secret detail'))
    expect(unknown.code).toBe('Neo.DatabaseError.General.UnknownError')
    expect(unknown.message).not.toContain('secret detail')
  })
})

import { Ajv } from 'ajv'
import Fastify from 'fastify'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Nullable, StringEnum } from './json-schema.js'

describe('Nullable and StringEnum', () => {
  const Schema = Type.Object({
    sequence: Nullable(Type.Integer({ minimum: 0 })),
    reason: Nullable(Type.Literal('idle_ttl_expired')),
    mode: StringEnum(['ephemeral', 'persistent']),
    named: Nullable(Type.Object({ a: Type.String() }, { $id: 'Named' })),
  })

  it('are plain JSON Schema with no anyOf, and a named schema is inlined without its $id', () => {
    const text = JSON.stringify(Schema)
    expect(text).not.toContain('anyOf')
    expect(text).not.toContain('"$id"')
    expect(Schema.properties.sequence).toMatchObject({ type: ['integer', 'null'], minimum: 0 })
    expect(Schema.properties.reason).toMatchObject({
      type: ['string', 'null'],
      enum: ['idle_ttl_expired', null],
    })
  })

  it('validate as the unions they replace', () => {
    const validate = new Ajv({ strict: false }).compile(Schema)
    const ok = { sequence: null, reason: null, mode: 'ephemeral', named: null }
    expect(validate(ok)).toBe(true)
    expect(validate({ ...ok, sequence: 3, reason: 'idle_ttl_expired', named: { a: 'x' } })).toBe(true)
    for (const bad of [
      { sequence: -1 },
      { sequence: 1.5 },
      { reason: 'other' },
      { mode: 'memory' },
      { named: 3 },
    ])
      expect(validate({ ...ok, ...bad })).toBe(false)
  })

  it('serialise as Fastify response schemas to the same JSON as JSON.stringify', async () => {
    const values = [
      { sequence: null, reason: null, mode: 'persistent', named: null },
      { sequence: 42, reason: 'idle_ttl_expired', mode: 'ephemeral', named: { a: 'b' } },
    ]
    const app = Fastify()
    app.get('/:i', { schema: { response: { 200: Schema } } }, async (request) => {
      return values[Number((request.params as { i: string }).i)]
    })
    for (const [i, value] of values.entries())
      expect((await app.inject({ url: `/${i}` })).body).toBe(JSON.stringify(value))
    await app.close()
  })
})

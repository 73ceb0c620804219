/**
 * Compiled single writes: a write whose whole query is one recognised shape runs through a function made
 * for that shape (planned once per query text, cached with the plan) instead of the general pipeline. The
 * engine applies it to the same transaction, so commit, constraints, log and publish are the general path's.
 */
import type { Query } from '../ast.js'
import { CompiledCreate } from './create.js'
import { recogniseCreate } from './recognise.js'

export type CompiledWrite = CompiledCreate

/** The compiled form of `query`, or undefined when it has none (it runs the general way). */
export function compileSingleWrite(query: Query): CompiledWrite | undefined {
  const create = recogniseCreate(query)
  return create === undefined ? undefined : new CompiledCreate(create)
}

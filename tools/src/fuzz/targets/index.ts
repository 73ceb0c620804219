import type { FuzzTarget } from '../target.js'
import { cypherGrammarTarget, cypherMutationTarget } from './cypher.js'
import { seedTarget } from './seed.js'
import { stixTarget } from './stix.js'

/**
 * Every fuzz target. Memory-operation and reference-write requests join here as their engine APIs land:
 * one module with a generator and its invariants each.
 */
export const TARGETS: readonly FuzzTarget<never>[] = [
  cypherGrammarTarget,
  cypherMutationTarget,
  stixTarget,
  seedTarget,
] as unknown as readonly FuzzTarget<never>[]

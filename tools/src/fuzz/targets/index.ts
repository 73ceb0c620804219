import type { FuzzTarget } from '../target.js'
import { boltTarget } from './bolt.js'
import { cypherGrammarTarget, cypherMutationTarget } from './cypher.js'
import { memoryTarget } from './memory.js'
import { refTarget } from './ref.js'
import { seedTarget } from './seed.js'
import { stixTarget } from './stix.js'

/** Every fuzz target: one module with a generator and its invariants each. */
export const TARGETS: readonly FuzzTarget<never>[] = [
  cypherGrammarTarget,
  cypherMutationTarget,
  stixTarget,
  seedTarget,
  memoryTarget,
  refTarget,
  boltTarget,
] as unknown as readonly FuzzTarget<never>[]

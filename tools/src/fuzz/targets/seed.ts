import { type Engine, openEngine } from '@service/core'
import { HashedNgramProvider, type SeedRequest } from '@service/core/seed'
import * as fc from 'fast-check'
import { engineFailureOnly } from '../invariants.js'
import { type FuzzTarget, invariant } from '../target.js'

const GRAPH = `
CREATE (:ThreatActor {name: 'APT1', description: 'Comment Crew espionage group', status: 'confirmed', confidence: 0.9})
CREATE (:Malware {name: 'Poison Ivy', description: 'remote access trojan', status: 'constructor'})
CREATE (:Malware {name: 'Emotet', description: 'banking malware and loader', aliases: ['Geodo', 'Heodo']})
CREATE (:Tool {name: 'nmap', description: 'network scanner', confidence: 2})
CREATE (:Tool {name: 'nmap', description: 'network scanner'})
CREATE (:Location {name: 'Zürich', description: '🙂 emoji and ünïcödé', __proto__: 'x'})`

const WORDS = [
  'APT1',
  'poison',
  'ivy',
  'emotet',
  'banking',
  'malware',
  'nmap',
  'network',
  'scanner',
  'zürich',
  'the',
]

const text = fc.oneof(
  {
    arbitrary: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')),
    weight: 6,
  },
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', '   ', 'constructor', '__proto__', 'x'.repeat(10_000), '\u0000', 'a b c'),
)
/** Well-typed requests with boundary values, and some of the wrong type (an embedded caller can send them). */
const mostly = <T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: usual, weight: 6 }, { arbitrary: odd, weight: 1 })
const request: fc.Arbitrary<SeedRequest> = fc.record(
  {
    objective: text,
    workspace_id: mostly(
      fc.constant('workspace--standalone-default'),
      fc.constantFrom('other', ' ', '', 'constructor'),
    ),
    domain_profile: mostly(
      fc.constantFrom('cross_domain', 'cross-domain'),
      fc.constantFrom('CTI', 'fimi', 'nope', 'constructor', ''),
    ),
    mode: mostly(
      fc.constantFrom('hybrid', 'full_text', 'fulltext', 'semantic', 'vector', ' HYBRID '),
      fc.constantFrom('toString', '__proto__', ''),
    ),
    top_k: mostly(fc.integer({ min: 1, max: 12 }), fc.constantFrom(0, -1, 0.5, 2 ** 53, Number.NaN, 1e308)),
    score_threshold: mostly(
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.constantFrom(-0.1, 1.1, Number.NaN, Number.POSITIVE_INFINITY),
    ),
  },
  { requiredKeys: ['objective'] },
)

export interface SeedCase {
  request: SeedRequest
  /** Semantic and vector need an embedding provider; without one they must answer 503. */
  embeddings: boolean
}

async function seedEngine(embeddings: boolean): Promise<Engine> {
  const engine = await openEngine({ storage: { mode: 'ephemeral' } })
  if (embeddings) engine.seed.embeddings.set(new HashedNgramProvider())
  const seeded = await engine.write(GRAPH)
  if (seeded.status !== 'Success') throw new Error(`seed graph failed: ${JSON.stringify(seeded)}`)
  return engine
}

/**
 * Seed search. Invariants: only EngineErrors; at most top_k candidates, each at or above the threshold
 * and in [0, 1], sorted by score; the same request twice gives the same answer.
 */
export async function checkSeedCase({ request, embeddings }: SeedCase): Promise<void> {
  const engine = await seedEngine(embeddings)
  try {
    const first = await engineFailureOnly(() => engine.seed.search(request))
    const second = await engineFailureOnly(() => engine.seed.search(request))
    invariant(JSON.stringify(first) === JSON.stringify(second), 'the same search gave different answers')
    if (first === undefined) return
    const topK = request.top_k ?? 10
    const threshold = request.score_threshold ?? 0
    invariant(first.candidates.length <= topK, `${first.candidates.length} candidates for top_k ${topK}`)
    let previous = Number.POSITIVE_INFINITY
    for (const c of first.candidates) {
      invariant(c.score >= threshold - 1e-9 && c.score <= 1 + 1e-9, `score ${c.score} outside [threshold, 1]`)
      invariant(c.score <= previous + 1e-12, 'candidates not sorted by score')
      previous = c.score
    }
  } finally {
    await engine.close()
  }
}

export const seedTarget: FuzzTarget<SeedCase> = {
  name: 'seed',
  description:
    'seed-search requests (objectives from graph words and odd text, every mode/profile, boundary top_k and thresholds), with and without embeddings',
  async prepare() {
    return {
      arbitrary: fc.record({ request, embeddings: fc.boolean() }),
      check: checkSeedCase,
      corpus: 'generated; graph words as objective vocabulary',
    }
  },
}

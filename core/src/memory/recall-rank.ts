import type { GraphReader } from '../graph/types.js'
import { memoryError } from './errors.js'
import { memoryRelationshipsOf } from './layout.js'
import {
  degree,
  memoryRecallable,
  page,
  recordKeys,
  relationshipRecallable,
  relValue,
  validityOf,
  type WalkPlan,
  type WalkResult,
} from './recall.js'
import type { CompiledFilters } from './recall-filters.js'
import {
  type Candidate,
  fuse,
  hubDegree,
  hubFactor,
  NAMED_TEXT,
  OUT_OF_VALIDITY,
  popcount,
} from './recall-fusion.js'
import type { RelationMatch } from './recall-relations.js'
import type { RecallOutcome } from './types.js'

/**
 * Recall ranking: budgeted seeds, bounded spreading activation from them, then one fused score.
 *
 * 1. Seeds. Explicit seeds, then the strongest objective hits: at most `seedBudget(max_items)` of them, and
 *    none below SEED_GAP x the best hit's score (the score-gap cut). The rest of the hits stay text evidence
 *    but do not spread: expansion always has room, whatever number of memories the objective matches.
 * 2. Walk. Activation leaves each seed in proportion to its score and spreads breadth-first, depth by depth
 *    (personalized-PageRank style: a node passes DAMPING of what it holds, shared among its edges by weight).
 *    An edge weighs its confidence (0.5 when absent) times 1 + RELATION_BOOST x the strength with which the
 *    objective names its kind. Only recallable relationships and memories carry activation; a supernode is not
 *    expanded; every edge looked at costs one unit of `cost`; time and cancellation are checked as it goes.
 * 3. Fusion (recall-fusion.ts): text, proximity and relation coverage, scaled by validity, hub degree and
 *    confidence; peaked lexical scores keep their leading hits at their lexical ranks.
 *
 * Explicit seeds are evidence, never diluted: each spreads as much as the best objective seed, and the objective
 * seeds keep the shares they would have without it. A hub (recall-fusion.ts `hubFactor`) that the objective does
 * not name passes on only its hub factor of what it holds: paths through the user's own record are weak.
 */
export const SEED_GAP = NAMED_TEXT
export const DAMPING = 0.85
export const RELATION_BOOST = 4
/** Seeds that spread: a third of the items asked for, 2 to 8. */
export const seedBudget = (maxItems: number): number => Math.max(2, Math.min(8, Math.ceil(maxItems / 3)))

const TIME_CHECK_EVERY = 256

/** Text evidence for a memory: its objective-hit score and the reasons that found it. */
export interface TextEvidence {
  id: number
  score: number
  reasons: string[]
  /** False for evidence that may rank but not spread (the ends of a matching relationship). */
  seed?: boolean
}

export interface RankPlan extends WalkPlan {
  /** Explicit seeds (already checked recallable), in the caller's order. */
  explicit: number[]
  /** Objective hits, best first. */
  hits: TextEvidence[]
  relations: RelationMatch
  /** Reasons every item of this recall carries (term corrections, synonyms). */
  shared: string[]
  /** The caller's filters (absent: none). */
  filters?: CompiledFilters
  /** The objective asks about the past ("before", "used to", "in 2023"): records no longer valid are not demoted. */
  asksPast?: boolean
  /** The years a past question names, or null. */
  pastWindow?: { start: number; end: number } | null
  /** The memory kinds the objective asks for (recall-answer-kind.ts). */
  answerKinds?: ReadonlySet<string>
  /** Memory kinds the answer lies beyond (recall-answer-kind.ts `waypointKinds`). */
  waypointKinds?: ReadonlySet<string>
}

export function rankRecall(reader: GraphReader, plan: RankPlan): WalkResult {
  const { limits } = plan
  const outcomes = new Set<RecallOutcome>()
  const keys = recordKeys(reader)
  const filters = plan.filters
  const kindBits = new Map([...plan.relations.kinds.keys()].map((k, i) => [k, 1 << Math.min(i, 30)]))
  // Passing through a memory of a waypoint kind counts as one more of the objective's relations met (fusion's
  // coverage): the far end of "Y -member-of-> team <-member-of- Z" answers "who is in the same team as Y".
  const waypoints = plan.waypointKinds ?? new Set<string>()
  const waypointBit = waypoints.size > 0 ? 1 << Math.min(plan.relations.kinds.size, 30) : 0
  const candidates = new Map<number, Candidate>()
  const best = plan.hits[0]?.score ?? 0
  const candidate = (id: number, depth: number, parent: Candidate | null, via: number | null) => {
    const c: Candidate = {
      id,
      depth,
      score: 0,
      reasons: [],
      parent,
      via,
      explicit: false,
      text: 0,
      received: 0,
      activation: 0,
      cover: 0,
      lastKind: null,
      lastOut: false,
      turns: 0,
      through: 1,
    }
    candidates.set(id, c)
    return c
  }
  // Seeds: explicit first, then the budgeted, gap-cut hits.
  const seeds: Candidate[] = []
  for (const id of plan.explicit) {
    if (candidates.has(id)) continue
    const c = candidate(id, 0, null, null)
    c.reasons.push('explicit_seed')
    c.explicit = true
    c.activation = 1
    seeds.push(c)
  }
  const budget = seedBudget(limits.max_items)
  let spreading = 0
  /** Explicit seeds the objective's text also made seeds: they spread as they would unnamed. */
  const earned = new Set<Candidate>()
  const textOf = new Map<number, TextEvidence>()
  for (const hit of plan.hits) {
    textOf.set(hit.id, hit)
    const explicit = candidates.get(hit.id)
    if (explicit !== undefined) {
      // Named and found: it takes the seed place (and the share) its text earned, as without the name.
      explicit.text = best > 0 ? hit.score / best : 0
      if (spreading < budget && hit.score >= SEED_GAP * best) {
        spreading++
        earned.add(explicit)
        explicit.activation = explicit.text
      }
    } else if (hit.seed !== false && spreading < budget && hit.score >= SEED_GAP * best) {
      const c = candidate(hit.id, 0, null, null)
      c.text = best > 0 ? hit.score / best : 0
      c.activation = c.text
      seeds.push(c)
      spreading++
    }
  }
  // Objective seeds spread in proportion to their scores, 1 in all; an explicit seed the text did not make a
  // seed spreads as the best of them does (1 alone): naming an anchor adds evidence and takes nothing from
  // what the objective found. Seeds go best first, as the hits are ordered, so the walk is the same with or
  // without the name when the objective already found it.
  const fromText = (c: Candidate) => !c.explicit || earned.has(c)
  let total = 0
  for (const c of seeds) if (fromText(c)) total += c.activation
  let top = 0
  for (const c of seeds)
    if (fromText(c)) {
      c.activation = total > 0 ? c.activation / total : 0
      top = Math.max(top, c.activation)
    }
  for (const c of seeds) if (!fromText(c)) c.activation = top > 0 ? top : 1
  seeds.sort((a, b) => b.activation - a.activation || a.id - b.id)
  const hub = hubDegree(keys.memory < 0 ? 0 : reader.labelCount(keys.memory))
  let cost = 0
  let depth = 0
  let frontier = seeds
  const edges: {
    other: number
    rel: number
    weight: number
    bit: number
    kind: string | null
    out: boolean
    waypoint: boolean
  }[] = []
  walking: for (let d = 1; d <= limits.max_depth && frontier.length > 0; d++) {
    const next: Candidate[] = []
    for (const from of frontier) {
      const fromDegree = degree(reader, from.id)
      if (fromDegree > limits.supernode_threshold) {
        outcomes.add('supernode_blocked')
        continue
      }
      // A hub the objective does not name is context: paths through it are weak.
      const named = from.explicit || (textOf.get(from.id)?.score ?? 0) >= NAMED_TEXT * best
      const passes = named ? 1 : hubFactor(fromDegree, hub)
      // Only a walked memory is a waypoint: a seed of that kind is what the text found, not a way to the answer.
      const through = waypointBit !== 0 && from.depth > 0 && isWaypoint(reader, keys.kind, from.id, waypoints)
      edges.length = 0
      let sum = 0
      for (const rel of memoryRelationshipsOf(reader, from.id)) {
        if (cost >= limits.max_cost) {
          outcomes.add('cost_budget_exhausted')
          break walking
        }
        cost++
        if (cost % TIME_CHECK_EVERY === 0) {
          if (plan.signal?.aborted) throw memoryError('CANCELLED', 'the recall was cancelled')
          if (performance.now() > plan.deadline) {
            outcomes.add('timeout')
            break walking
          }
        }
        if (!relationshipRecallable(reader, keys, rel, plan.nowMs)) continue
        if (filters?.active && !filters.relationship(reader, rel)) continue
        const start = reader.relStart(rel)
        const other = start === from.id ? reader.relEnd(rel) : start
        if (
          !candidates.has(other) &&
          (!memoryRecallable(reader, keys, other, plan.nowMs) ||
            (filters?.active && !filters.memory(reader, other)))
        )
          continue
        const kind = relValue(reader, rel, keys.kind)
        const strength = typeof kind === 'string' ? (plan.relations.kinds.get(kind) ?? 0) : 0
        const confidence = relValue(reader, rel, keys.confidence)
        const current =
          plan.asksPast === true ||
          validityOf(
            relValue(reader, rel, keys.valid_from),
            relValue(reader, rel, keys.valid_until),
            plan.nowMs,
          ).state === 'valid'
        const weight =
          (typeof confidence === 'number' && confidence > 0 ? Math.min(1, confidence) : 0.5) *
          (1 + RELATION_BOOST * strength) *
          (current ? 1 : OUT_OF_VALIDITY)
        edges.push({
          other,
          rel,
          weight,
          bit: (strength > 0 ? (kindBits.get(kind as string) ?? 0) : 0) | (through ? waypointBit : 0),
          waypoint: through,
          kind: typeof kind === 'string' ? kind : null,
          out: start === from.id,
        })
        sum += weight
      }
      for (const e of edges) {
        const share = (from.activation * passes * DAMPING * e.weight) / sum
        let to = candidates.get(e.other)
        if (to === undefined) {
          to = candidate(e.other, d, from, e.rel)
          takePath(to, from, e, passes)
          to.reasons.push(`authorized_relationship_depth_${d}`, 'bounded_authorized_neighborhood')
          next.push(to)
          depth = d
        } else if (to.depth > 0 && popcount(from.cover | e.bit) > popcount(to.cover) && to.depth >= d) {
          // A path covering more of the objective's relations explains it better.
          takePath(to, from, e, passes)
        }
        to.received += share
        if (to.depth === d) to.activation += share
      }
    }
    frontier = next
  }
  // Text evidence joins what the walk reached; hits it did not reach rank on their text alone.
  for (const hit of textOf.values()) {
    const c = candidates.get(hit.id) ?? candidate(hit.id, 0, null, null)
    c.text = best > 0 ? hit.score / best : 0
    for (const r of hit.reasons) if (!c.reasons.includes(r)) c.reasons.push(r)
  }
  const lexical = plan.hits.filter((h) => h.seed !== false)
  const order = fuse(reader, { ...plan, lexical }, [...candidates.values()])
  return page(reader, plan, order, outcomes, depth, cost)
}

/** Whether memory `id` is of one of the waypoint kinds (one property read, only for objectives naming one). */
function isWaypoint(
  reader: GraphReader,
  kindKey: number,
  id: number,
  waypoints: ReadonlySet<string>,
): boolean {
  const kind = kindKey < 0 ? undefined : reader.node(id)?.props.get(kindKey)
  return typeof kind === 'string' && waypoints.has(kind)
}

/** `to` is reached from `from` across `e`: its path, the relations met on it, and its turns. */
function takePath(
  to: Candidate,
  from: Candidate,
  e: { rel: number; bit: number; kind: string | null; out: boolean; waypoint: boolean },
  passes: number,
): void {
  to.parent = from
  to.via = e.rel
  to.cover = from.cover | e.bit
  // Turning at a waypoint is the point of it (Y -member-of-> team <-member-of- Z): not a sibling's detour.
  const turn = from.depth > 0 && !e.waypoint && e.kind === from.lastKind && e.out !== from.lastOut
  to.turns = from.turns + (turn ? 1 : 0)
  to.through = from.through * passes
  to.lastKind = e.kind
  to.lastOut = e.out
}

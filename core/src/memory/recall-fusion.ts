import type { GraphReader, PropertyValue } from '../graph/types.js'
import { degree, type Reached, recordKeys, timeOf, validityOf } from './recall.js'
import type { RelationMatch } from './recall-relations.js'

/**
 * Recall fusion: one score per memory the seeds and the walk found, then the order.
 *
 * score = (W_TEXT x text + W_GRAPH x proximity + W_RELATION x coverage x (1 + proximity) / 2)
 *         x validity x hub x confidence
 *
 * - text: objective-hit score / the best hit's (W_TEXT_RELATIONAL when the objective names a relation kind);
 *   proximity: activation received / the most any memory received; coverage: the share of the objective's
 *   relation kinds on the path (and of the waypoint kind, when the question names one), divided by 1 + its turns
 *   (recall-rank.ts), times the hub factors on the path.
 * - validity: OUT_OF_VALIDITY outside the validity interval, unless the objective asks about the past; then the
 *   version valid at the time asked takes PAST_VERSION and what is not a version PAST_CONTEXT (`pastFactor`).
 * - hub: a memory linked to a large share of the workspace (the user's own record, a whole team) is context,
 *   not an answer: `hubFactor` of its degree, unless the objective names it (explicit seed or a strong hit).
 * - confidence: CONFIDENCE_FLOOR + (1 - CONFIDENCE_FLOOR) x the memory's confidence (1 when absent).
 *
 * Then the order adapts to how peaked the lexical scores are (`keptLexicalRanks`): when the objective names one
 * thing (its best hits stand well above the rest) and no relation kind, those hits keep their lexical ranks and
 * the fused score orders the rest. A flat lexical distribution leaves the order to the fused score.
 */
export const W_TEXT = 1
/** Text weight when the objective names a relation: it asks for what lies across it, not for its words. */
export const W_TEXT_RELATIONAL = 0.6
export const W_GRAPH = 0.35
export const W_RELATION = 0.9
/**
 * A memory or relationship outside its validity interval is a fact about another time: it keeps this share of
 * its score and of its edge weight, so what holds now ranks first, unless the objective asks about the past.
 */
export const OUT_OF_VALIDITY = 0.5
/**
 * A question about the past prefers the version valid then: a memory whose validity ended (or, when it names a
 * year, whose validity overlaps that year) takes this multiple of its score, one valid only at other times
 * OUT_OF_VALIDITY of it; a memory without a validity interval is not a version and keeps its score.
 */
export const PAST_VERSION = 1.5
/**
 * Under a question about the past that does not type its answer, a memory without a validity interval (not a
 * version of anything) keeps this share: the person a "where did X live before" names is context for the answer.
 */
export const PAST_CONTEXT = 0.5
/** Text (share of the best hit) at which the objective names a memory: seeds spread from there, hubs keep rank. */
export const NAMED_TEXT = 0.5
/** A memory is a hub past this share of the workspace's memories (and past HUB_MIN_DEGREE relationships). */
export const HUB_SHARE = 0.1
export const HUB_MIN_DEGREE = 50
export const CONFIDENCE_FLOOR = 0.8
/**
 * When the objective asks for a kind of memory (recall-answer-kind.ts), a memory of another kind keeps this share
 * of its score: it is context for the answer (the meeting a decision came out of), not the answer.
 */
export const OFF_ANSWER_KIND = 0.35
/** Lexical scores are peaked where the next hit scores below this share of the one before. */
export const PEAK_RATIO = 0.6
/** At most this many leading hits keep their lexical ranks. */
export const PEAK_KEPT_MAX = 3

/** A memory the seeds or the walk reached, with what ranks it. */
export interface Candidate extends Reached {
  /** Named by the caller: ranked as evidence, spreads as the best seed. */
  explicit: boolean
  text: number
  /** Activation received through relationships (a seed's own share is not counted). */
  received: number
  activation: number
  /** Bit per objective relation kind met on the path here. */
  cover: number
  /** The kind and direction of the last hop, and the turns on the path (see recall-rank.ts). */
  lastKind: string | null
  lastOut: boolean
  turns: number
  /** The product of the hub factors of the unnamed hubs on its path: relations met through a hub count less. */
  through: number
}

export const popcount = (n: number) => {
  let c = 0
  for (let v = n; v !== 0; v &= v - 1) c++
  return c
}

/** Degree from which a memory is a hub in a workspace of `memories` memories. */
export const hubDegree = (memories: number): number => Math.max(HUB_MIN_DEGREE, HUB_SHARE * memories)

/**
 * The share of rank (and of activation and relation coverage passed on) a memory of `deg` relationships keeps:
 * 1 up to a hub's degree, then inversely proportional to its degree.
 */
export function hubFactor(deg: number, hub: number): number {
  return deg <= hub ? 1 : hub / deg
}

/**
 * How many of the leading objective hits keep their lexical ranks: up to PEAK_KEPT_MAX hits before the first
 * drop below PEAK_RATIO of the previous score; none when there is no such drop (flat scores) or the objective
 * names a relation kind (it asks for what lies across the named thing, not for it).
 */
export function keptLexicalRanks(scores: readonly number[], relational: boolean): number {
  if (relational || scores.length === 0) return 0
  for (let i = 0; i < Math.min(PEAK_KEPT_MAX, scores.length); i++) {
    const next = scores[i + 1]
    if (next === undefined || next < PEAK_RATIO * (scores[i] as number)) return i + 1
  }
  return 0
}

export interface FusionPlan {
  relations: RelationMatch
  shared: string[]
  nowMs: number
  asksPast?: boolean
  /** The years a past question names (recall-time-cues.ts `pastYears`), or null. */
  pastWindow?: { start: number; end: number } | null
  /** Objective hits that may seed, best first, as memory ids and scores (for the peaked-lexical rule). */
  lexical: { id: number; score: number }[]
  /** The memory kinds the objective asks for (empty or absent: any). */
  answerKinds?: ReadonlySet<string>
  /** Memory kinds the answer lies beyond: one more bit of coverage after the relation kinds' (recall-rank.ts). */
  waypointKinds?: ReadonlySet<string>
}

/** One score per candidate (see the module comment), then the order: kept lexical ranks first. */
export function fuse(reader: GraphReader, plan: FusionPlan, all: Candidate[]): Candidate[] {
  const keys = recordKeys(reader)
  const hub = hubDegree(keys.memory < 0 ? 0 : reader.labelCount(keys.memory))
  let most = 0
  for (const c of all) most = Math.max(most, c.received)
  const waypoints = [...(plan.waypointKinds ?? [])]
  const names = [...plan.relations.kinds.keys()]
  const kinds = names.length + (waypoints.length > 0 ? 1 : 0)
  const wText = kinds > 0 ? W_TEXT_RELATIONAL : W_TEXT
  const answerKinds = plan.answerKinds
  const untyped = answerKinds === undefined || answerKinds.size === 0
  /** Candidates with a validity interval: versions of a fact rather than things. */
  const versions = new Set<number>()
  for (const c of all) {
    const proximity = most > 0 ? c.received / most : 0
    // A path that turns back on a kind (X -uses-> Y <-uses- Z) reaches a sibling, not an answer.
    const coverage = kinds > 0 ? (popcount(c.cover) / kinds / (1 + c.turns)) * c.through : 0
    const text = c.explicit && c.text === 0 ? 1 : c.text
    const lexical = wText * text
    const graph = W_GRAPH * proximity
    const relation = (W_RELATION * coverage * (1 + proximity)) / 2
    if (proximity > 0) c.reasons.push('graph_proximity')
    if (coverage > 0)
      for (let i = 0; i < kinds; i++)
        if (c.cover & (1 << Math.min(i, 30))) {
          const kind = names[i]
          if (kind === undefined) {
            c.reasons.push(`waypoint:${waypoints.join(',')}`)
            continue
          }
          const ev = plan.relations.evidence.get(kind)
          c.reasons.push(
            `relation_match:${kind}${ev === undefined ? '' : ` (objective word "${ev.word}"${ev.via === 'vector' ? ', word-vector neighbour' : ''})`}`,
          )
        }
    for (const r of plan.shared) if (c.text > 0) c.reasons.push(r)
    const node = reader.node(c.id)
    const props = node?.props
    const validity = validityOf(
      keys.valid_from < 0 ? undefined : props?.get(keys.valid_from),
      keys.valid_until < 0 ? undefined : props?.get(keys.valid_until),
      plan.nowMs,
    )
    let validityFactor = 1
    if (validity.state !== 'valid') {
      c.reasons.push(
        validity.state === 'ended'
          ? `no_longer_valid_since:${validity.at}`
          : `not_yet_valid_until:${validity.at}`,
      )
      if (!plan.asksPast || validity.state === 'future') validityFactor = OUT_OF_VALIDITY
    }
    const from = keys.valid_from < 0 ? undefined : props?.get(keys.valid_from)
    const until = keys.valid_until < 0 ? undefined : props?.get(keys.valid_until)
    if (timeOf(from) !== null || timeOf(until) !== null) versions.add(c.id)
    if (plan.asksPast && validity.state !== 'future') {
      validityFactor = pastFactor(from, until, validity.state === 'ended', plan.pastWindow ?? null, untyped)
      // The version asked about is one of what the objective names, reached through the graph: another person's
      // old address that shares a word is not preferred over the named person's current one.
      if (validityFactor > 1 && proximity === 0) validityFactor = 1
      if (validityFactor > 1) c.reasons.push('valid_at_the_time_asked')
    }
    const deg = degree(reader, c.id)
    const named = c.explicit || c.text >= NAMED_TEXT
    const hubbed = named ? 1 : hubFactor(deg, hub)
    if (hubbed < 1) c.reasons.push(`hub_demoted:degree_${deg}`)
    const conf = keys.confidence < 0 ? undefined : props?.get(keys.confidence)
    const confidence = typeof conf === 'number' ? Math.max(0, Math.min(1, conf)) : null
    const confFactor = confidence === null ? 1 : CONFIDENCE_FLOOR + (1 - CONFIDENCE_FLOOR) * confidence
    let answerFactor = 1
    if (answerKinds !== undefined && answerKinds.size > 0) {
      const kind = keys.kind < 0 ? undefined : props?.get(keys.kind)
      if (typeof kind === 'string' && answerKinds.has(kind)) c.reasons.push(`answer_kind:${kind}`)
      else answerFactor = OFF_ANSWER_KIND
    }
    c.score = (lexical + graph + relation) * validityFactor * hubbed * confFactor * answerFactor
    c.signals = {
      lexical: { value: text, contribution: lexical },
      graph: { value: proximity, contribution: graph },
      relation: { value: coverage, contribution: relation },
      seed: c.explicit,
      validity: validityFactor,
      degree: { value: deg, factor: hubbed },
      confidence: { value: confidence, factor: confFactor },
      answer_kind: answerFactor,
      lexical_rank: null,
    }
  }
  const order = all.sort((a, b) => b.score - a.score || a.id - b.id)
  return keepLexicalRanks(order, plan, kinds > 0, versions)
}

/** The validity factor under a question about the past (PAST_VERSION). */
function pastFactor(
  from: PropertyValue | undefined,
  until: PropertyValue | undefined,
  ended: boolean,
  window: { start: number; end: number } | null,
  untyped: boolean,
): number {
  const start = timeOf(from)
  const end = timeOf(until)
  // "Where did X live before the move" asks for a version of a fact, not for X: what has no validity interval
  // is context. A question typing its answer ("who led X before") asks for that kind, versions or not.
  if (start === null && end === null) return untyped ? PAST_CONTEXT : 1
  if (window === null) return ended ? PAST_VERSION : 1
  const overlaps = (start ?? -Infinity) < window.end && (end ?? Infinity) > window.start
  return overlaps ? PAST_VERSION : OUT_OF_VALIDITY
}

/** Peaked lexical scores: the leading hits take the first places in their lexical order (keptLexicalRanks). */
function keepLexicalRanks(
  order: Candidate[],
  plan: FusionPlan,
  relational: boolean,
  versions: ReadonlySet<number>,
): Candidate[] {
  const kept = keptLexicalRanks(
    plan.lexical.map((h) => h.score),
    relational,
  )
  if (kept === 0) return order
  const byId = new Map(order.map((c) => [c.id, c]))
  const head: Candidate[] = []
  for (const h of plan.lexical.slice(0, kept)) {
    const c = byId.get(h.id)
    // What no longer holds keeps its demotion: the rule is for the thing named, as it stands. A question about
    // the past asks about a change, not the thing it names: only versions (with a validity interval) keep it.
    const validity = c?.signals?.validity ?? 1
    if (c === undefined || validity < 1 || (plan.asksPast && !versions.has(c.id))) break
    if (c.signals) c.signals.lexical_rank = head.length
    head.push(c)
  }
  if (head.length === 0) return order
  const inHead = new Set(head)
  return [...head, ...order.filter((c) => !inHead.has(c))]
}

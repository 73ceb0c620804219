import { EngineError, type ErrorCode } from '../errors.js'
import { ownValue } from '../own-key.js'

/**
 * Request validation (400s, FACTS §4 order) and the 422 selection rules over sorted candidates.
 */
export const DOMAIN_PROFILES = ['cti', 'fimi', 'crisis', 'cross_domain'] as const
export type DomainProfile = (typeof DOMAIN_PROFILES)[number]
export const RETRIEVAL_MODES = ['hybrid', 'full_text', 'semantic', 'vector'] as const
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number]
/** Profiles that pass the domain gates (feature, license, provider) before a search. */
export const GATED_PROFILES: ReadonlySet<DomainProfile> = new Set(['cti', 'fimi', 'crisis'])

export interface SeedRequest {
  objective: string
  workspace_id?: string | undefined
  domain_profile?: string | undefined
  mode?: string | undefined
  top_k?: number | undefined
  score_threshold?: number | undefined
}

export interface ParsedSeedRequest {
  objective: string
  workspaceId: string | undefined
  profile: DomainProfile
  mode: RetrievalMode
  topK: number
  threshold: number
}

const PROFILE_ALIASES: Readonly<Record<string, DomainProfile>> = { 'cross-domain': 'cross_domain' }
const MODE_ALIASES: Readonly<Record<string, RetrievalMode>> = {
  fulltext: 'full_text',
  'full-text': 'full_text',
}

const invalid = (code: ErrorCode, message: string) => new EngineError(code, message)

function oneOf<T extends string>(
  raw: string | undefined,
  allowed: readonly T[],
  aliases: Readonly<Record<string, T>>,
  fallback: T,
): T | null {
  if (raw === undefined) return fallback
  const v = raw.trim().toLowerCase()
  return ownValue(aliases, v) ?? ((allowed as readonly string[]).includes(v) ? (v as T) : null)
}

export function parseSeedRequest(request: SeedRequest): ParsedSeedRequest {
  const profile = oneOf(request.domain_profile, DOMAIN_PROFILES, PROFILE_ALIASES, 'cross_domain')
  if (profile === null)
    throw invalid('INVALID_DOMAIN_PROFILE', `domain_profile must be one of ${DOMAIN_PROFILES.join(', ')}`)
  const mode = oneOf(request.mode, RETRIEVAL_MODES, MODE_ALIASES, 'hybrid')
  if (mode === null)
    throw invalid('INVALID_RETRIEVAL_MODE', `mode must be one of ${RETRIEVAL_MODES.join(', ')}`)
  const objective = request.objective.trim()
  if (objective === '') throw invalid('INVALID_SEED_REQUEST', 'objective must not be blank')
  const topK = request.top_k ?? 10
  if (!Number.isSafeInteger(topK) || topK < 1)
    throw invalid('INVALID_SEED_REQUEST', 'top_k must be an integer >= 1')
  const threshold = request.score_threshold ?? 0
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1)
    throw invalid('INVALID_SEED_REQUEST', 'score_threshold must be within [0, 1]')
  const ws = request.workspace_id
  if (ws !== undefined && ws.trim() === '')
    throw invalid('INVALID_WORKSPACE_ID', 'workspace_id must not be blank')
  return { objective, workspaceId: ws?.trim(), profile, mode, topK, threshold }
}

/** 422 with the reference's message shape: "<reason> (fix: <hint>)". */
export const unprocessable = (code: ErrorCode, reason: string, hint: string) =>
  new EngineError(code, `${reason} (fix: ${hint})`)

/** Scores closer than this are a tie at the cut. */
export const TIE_EPSILON = 1e-9

/**
 * The 422 rules over candidates already filtered (matched, >= threshold) and sorted (score desc, id asc):
 * none -> NO_SEED; a tie that runs from the first candidate across the top_k cut -> AMBIGUOUS_SEED (the
 * ranking cannot say which node was meant); otherwise the first top_k. A tie lower down (candidates 10
 * and 11 among weak matches) hides nothing about the best match: it is answered, ties in node id order.
 * FACTS' "more than top_k x 10 matches -> OVERBROAD" is not applied: with OR-matching, one common word
 * makes any good question "overbroad" (issue 14); overbroad is decided from the terms (`overbroadTerms`).
 */
export function selectSeeds<T extends { score: number }>(sorted: readonly T[], topK: number): T[] {
  if (sorted.length === 0)
    throw unprocessable(
      'NO_SEED',
      'no node matches the objective at or above the score threshold',
      'use names or terms that occur in the graph, or lower score_threshold',
    )
  if (sorted.length > topK) {
    const first = (sorted[0] as T).score
    const next = (sorted[topK] as T).score
    if (Math.abs(first - next) < TIE_EPSILON)
      throw unprocessable(
        'AMBIGUOUS_SEED',
        `the first ${topK + 1} candidates tie at score ${first.toFixed(6)}, across the top_k cut`,
        'add a distinguishing term or change top_k',
      )
  }
  return sorted.slice(0, topK)
}

/**
 * A term is common when it occurs in more than COMMON_SHARE of the workspace's nodes and in more than
 * top_k x 10 of them: it cannot tell the top of a ranking from the bulk. Chosen on ATT&CK ICS + Mobile
 * (712 searchable nodes, docs/seed-search.md): every judged objective has a term in at most 3.8% of the
 * nodes; the words an objective without subject is made of are far above ("control" 18%, "technique"
 * 22%, "malware" 26%, "data" 26%, "adversary" 36%, "device" 36%, "attack" 58%).
 */
export const COMMON_SHARE = 0.15

/** Document frequency above which a term is common. */
export const commonLimit = (documents: number, topK: number) => Math.max(topK * 10, COMMON_SHARE * documents)

/** OVERBROAD when every term is common (and no identifier matched); else null. */
export function overbroadTerms(
  terms: readonly { term: string; df: number }[],
  documents: number,
  topK: number,
): EngineError | null {
  const limit = commonLimit(documents, topK)
  if (terms.length === 0 || terms.some((t) => t.df <= limit)) return null
  const rarest = Math.min(...terms.map((t) => t.df))
  return unprocessable(
    'OVERBROAD_OBJECTIVE',
    `every term of the objective (${terms.map((t) => t.term).join(', ')}) occurs in more than ${Math.round(
      COMMON_SHARE * 100,
    )}% of the ${documents} nodes and more than top_k x 10 = ${topK * 10} (the rarest in ${rarest})`,
    'add a specific name, identifier or distinguishing term',
  )
}

export const noTermsError = () =>
  unprocessable(
    'OVERBROAD_OBJECTIVE',
    'the objective has no searchable terms once stopwords and one-character tokens are removed',
    'name a specific entity, technique, place or property',
  )

/**
 * Correction playbooks of bundle validation (FACTS §5). Each fills one missing required property with a
 * documented default and stamps the correction on the object as `x_service_corrections`.
 */
export interface Correction {
  field: string
  strategy: 'playbook_default' | 'processing_utc_default'
  value: unknown
  reason: string
  playbook_id: string
}

export interface PlaybookApplied {
  id: string
  description: string
  node_id: string | null
}

export interface CorrectionsSummary {
  total_corrections: number
  by_field: Record<string, number>
  by_strategy: Record<string, number>
  by_playbook_id: Record<string, number>
}

interface Playbook {
  id: string
  type: string
  field: string
  strategy: Correction['strategy']
  description: string
  /** A fixed default; processing-time playbooks use the run's time instead. */
  value?: unknown
}

export const PLAYBOOKS: readonly Playbook[] = [
  {
    id: 'PLAYBOOK_FIX_IDENTITY_NAME',
    type: 'identity',
    field: 'name',
    strategy: 'playbook_default',
    value: 'Unknown Identity',
    description: 'Set a missing identity name to "Unknown Identity"',
  },
  {
    id: 'PLAYBOOK_FIX_MALWARE_IS_FAMILY',
    type: 'malware',
    field: 'is_family',
    strategy: 'playbook_default',
    value: false,
    description: 'Set a missing malware is_family to false',
  },
  {
    id: 'PLAYBOOK_FIX_INDICATOR_VALID_FROM_PROCESSING_UTC',
    type: 'indicator',
    field: 'valid_from',
    strategy: 'processing_utc_default',
    description: 'Set a missing indicator valid_from to the processing time (UTC)',
  },
  {
    id: 'PLAYBOOK_FIX_REPORT_PUBLISHED_PROCESSING_UTC',
    type: 'report',
    field: 'published',
    strategy: 'processing_utc_default',
    description: 'Set a missing report published to the processing time (UTC)',
  },
  {
    id: 'PLAYBOOK_FIX_OBSERVED_DATA_FIRST_OBSERVED_PROCESSING_UTC',
    type: 'observed-data',
    field: 'first_observed',
    strategy: 'processing_utc_default',
    description: 'Set a missing observed-data first_observed to the processing time (UTC)',
  },
  {
    id: 'PLAYBOOK_FIX_OBSERVED_DATA_LAST_OBSERVED_PROCESSING_UTC',
    type: 'observed-data',
    field: 'last_observed',
    strategy: 'processing_utc_default',
    description: 'Set a missing observed-data last_observed to the processing time (UTC)',
  },
]

/** Processing time to the second with a `Z` suffix. */
export const processingUtc = (nowMs: number): string =>
  new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z')

export interface PlaybookRun {
  objects: unknown[]
  applied: PlaybookApplied[]
  corrections: Correction[]
}

/** Applies every playbook to a copy of the objects; the input is left as it was. */
export function applyPlaybooks(objects: readonly unknown[], nowMs: number): PlaybookRun {
  const applied: PlaybookApplied[] = []
  const corrections: Correction[] = []
  const now = processingUtc(nowMs)
  const out = objects.map((input) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return input
    let object = input as Record<string, unknown>
    for (const p of PLAYBOOKS) {
      if (object.type !== p.type || object[p.field] !== undefined) continue
      if (object === input) object = structuredClone(object)
      const value = p.strategy === 'processing_utc_default' ? now : p.value
      const reason = `${p.field} was missing; ${p.strategy === 'processing_utc_default' ? 'set to the processing time' : 'set to the playbook default'}`
      object[p.field] = value
      if (p.strategy === 'processing_utc_default') {
        const note = `[corrected] ${p.field} set to processing time ${now} by ${p.id}`
        object.description =
          typeof object.description === 'string' && object.description !== ''
            ? `${object.description}\n\n${note}`
            : note
      }
      const correction: Correction = {
        field: p.field,
        strategy: p.strategy,
        value,
        reason,
        playbook_id: p.id,
      }
      const stamped = Array.isArray(object.x_service_corrections) ? object.x_service_corrections : []
      object.x_service_corrections = [...stamped, correction]
      corrections.push(correction)
      applied.push({
        id: p.id,
        description: p.description,
        node_id: typeof object.id === 'string' ? object.id : null,
      })
    }
    return object
  })
  return { objects: out, applied, corrections }
}

export function summarize(corrections: readonly Correction[]): CorrectionsSummary | null {
  if (corrections.length === 0) return null
  const count = (key: (c: Correction) => string) => {
    const map = new Map<string, number>()
    for (const c of corrections) map.set(key(c), (map.get(key(c)) ?? 0) + 1)
    return Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : 1)))
  }
  return {
    total_corrections: corrections.length,
    by_field: count((c) => c.field),
    by_strategy: count((c) => c.strategy),
    by_playbook_id: count((c) => c.playbook_id),
  }
}

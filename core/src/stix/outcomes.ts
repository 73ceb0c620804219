import { byKeys } from './order.js'
/** Per-record outcomes and the accounting of an import result (FACTS §5). */
export type OutcomeStatus =
  | 'created'
  | 'updated'
  | 'duplicate'
  | 'rejected'
  | 'unresolved_reference'
  | 'failed'

export interface ImportOutcome {
  id: string
  /** `relationship` for records that became edges, `entity` for nodes. */
  record_type: 'entity' | 'relationship'
  status: OutcomeStatus
  reference?: string
  error_code?: string
}

export interface ImportMetrics {
  requested: number
  created: number
  updated: number
  duplicate: number
  rejected: number
  unresolved_reference: number
  failed: number
}

export interface ImportResult {
  processed_objects: number
  applied_mutations: number
  rejected_mutations: number
  errors: string[]
  outcomes: ImportOutcome[]
  metrics: ImportMetrics
}

const byIdThenType = byKeys<ImportOutcome>(
  (o) => o.id,
  (o) => o.record_type,
)

/** applied = created + updated; rejected = rejected + unresolved_reference + failed; outcomes by id, type. */
export function importResult(
  processed: number,
  outcomes: ImportOutcome[],
  errors: string[] = [],
): ImportResult {
  const metrics: ImportMetrics = {
    requested: outcomes.length,
    created: 0,
    updated: 0,
    duplicate: 0,
    rejected: 0,
    unresolved_reference: 0,
    failed: 0,
  }
  for (const o of outcomes) metrics[o.status]++
  return {
    processed_objects: processed,
    applied_mutations: metrics.created + metrics.updated,
    rejected_mutations: metrics.rejected + metrics.unresolved_reference + metrics.failed,
    errors,
    outcomes: outcomes.sort(byIdThenType),
    metrics,
  }
}

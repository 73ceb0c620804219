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

/** The import result's `metrics` keys: the one list the server, its metrics and the TAXII connector share. */
export const IMPORT_METRIC_KEYS = [
  'requested',
  'created',
  'updated',
  'duplicate',
  'rejected',
  'unresolved_reference',
  'failed',
] as const
export type ImportMetrics = Record<(typeof IMPORT_METRIC_KEYS)[number], number>

export const zeroImportMetrics = (): ImportMetrics =>
  Object.fromEntries(IMPORT_METRIC_KEYS.map((key) => [key, 0])) as ImportMetrics

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
  const metrics = zeroImportMetrics()
  metrics.requested = outcomes.length
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

/**
 * The STIX validation request (FACTS §5): bundle mode checks a bundle with our schemas and rules, runs the
 * correction playbooks, and imports the corrected bundle when any ran; graph mode runs the export gates
 * (and the cti pack's node.validate when given) over the stored STIX records. No playbooks in graph mode.
 */

import { EngineError, type ErrorCode } from '../errors.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import { bundleObjects } from './bundle.js'
import { EXPORT_DEFAULTS } from './export.js'
import type { StixHost } from './host.js'
import { importStix } from './import.js'
import { hasError, type StixIssue } from './issues.js'
import { P, STIX_LABEL } from './mapping.js'
import type { ImportResult } from './outcomes.js'
import { collectRecords, planExport, type ValidateNode } from './plan.js'
import { applyPlaybooks, type CorrectionsSummary, type PlaybookApplied, summarize } from './playbooks.js'
import { givenIds } from './request-ids.js'
import { validateObjects } from './validate.js'

export interface StixValidateRequest {
  source?: string | undefined
  bundle?: unknown
  workspaceId?: string | undefined
  sessionId?: string | undefined
  budgetRef?: string | undefined
  snapshotId?: string | undefined
  validateNode?: ValidateNode | undefined
  /** Processing time for the *_PROCESSING_UTC playbooks (default Date.now). */
  now?: (() => number) | undefined
}

export interface StixValidationResult {
  source_mode: 'bundle' | 'graph'
  valid: boolean
  issues: StixIssue[]
  playbooks_applied: PlaybookApplied[]
  corrections_summary: CorrectionsSummary | null
  persistence: ImportResult | null
  errors: string[]
}

const bad = (code: ErrorCode, message: string) => new EngineError(code, message)

export async function validateStix(
  engine: StixHost,
  given: StixValidateRequest,
): Promise<StixValidationResult> {
  const request = givenIds(given)
  const source = (request.source ?? 'bundle').trim().toLowerCase()
  if (source !== 'bundle' && source !== 'graph')
    throw bad('INVALID_SOURCE_MODE', 'source must be bundle or graph')
  const workspaceId = request.workspaceId ?? DEFAULT_WORKSPACE_ID
  if (source === 'graph') return validateGraph(engine, workspaceId, request)
  if (request.bundle === undefined || request.bundle === null)
    throw bad('MISSING_BUNDLE', 'bundle mode needs a bundle')
  const objects = bundleObjects(request.bundle, true)
  const issues = await engine.readGraph(workspaceId, (store) => {
    const label = store.names.lookup(STIX_LABEL)
    const key = store.names.lookup(P.id)
    const known = (id: string) =>
      label >= 0 && key >= 0 && !store.propertyNodeIds(label, key, id)[Symbol.iterator]().next().done
    return validateObjects(objects, { knownIds: known })
  })
  const run = applyPlaybooks(objects, (request.now ?? Date.now)())
  let persistence: ImportResult | null = null
  if (run.applied.length > 0) {
    const corrected = { ...(request.bundle as Record<string, unknown>), objects: run.objects }
    const report = await importStix(engine, {
      bundle: corrected,
      workspaceId,
      sessionId: request.sessionId,
      budgetRef: request.budgetRef,
    })
    persistence = report.result
  }
  return {
    source_mode: 'bundle',
    valid: !hasError(issues),
    issues,
    playbooks_applied: run.applied,
    corrections_summary: summarize(run.corrections),
    persistence,
    errors: [],
  }
}

async function validateGraph(
  engine: StixHost,
  workspaceId: string,
  request: StixValidateRequest,
): Promise<StixValidationResult> {
  const snapshot = request.snapshotId ?? EXPORT_DEFAULTS.snapshotId
  const { records, evidence } = await engine.readAt(workspaceId, snapshot, (reader) => collectRecords(reader))
  await planExport(records, new Set(evidence.keys()), request.validateNode)
  const issues: StixIssue[] = records.flatMap((r) =>
    r.findings.map((f) => ({
      code: f.code,
      message: f.message,
      field: null,
      severity: 'error' as const,
      node_id: r.recordId,
    })),
  )
  return {
    source_mode: 'graph',
    valid: issues.length === 0,
    issues,
    playbooks_applied: [],
    corrections_summary: null,
    persistence: null,
    errors: [],
  }
}

/**
 * STIX 2.1 import, validation (with correction playbooks) and deterministic export over the engine.
 * Usable embedded; the HTTP routes are @service/plugin-stix.
 */
export { canonicalize, fnv1a64Hex, sha256Hex, uuidV5 } from './canonical.js'
export {
  EXPORT_DEFAULTS,
  exportStix,
  MAX_EXCLUSIONS,
  type StixExport,
  type StixExportRequest,
  strictFailure,
} from './export.js'
export type { StixHost } from './host.js'
export { importStix, type StixImportReport, type StixImportRequest } from './import.js'
export { hasError, type StixIssue } from './issues.js'
export {
  CTI_NODE_LABELS,
  CTI_RELATIONSHIP_TYPES,
  nodeLabels,
  P as STIX_PROPERTIES,
  relationshipType,
  STIX_LABEL,
} from './mapping.js'
export {
  IMPORT_METRIC_KEYS,
  type ImportMetrics,
  type ImportOutcome,
  type ImportResult,
  type OutcomeStatus,
  zeroImportMetrics,
} from './outcomes.js'
export type { CtiNodePayload, Finding, ProviderIssue, ValidateNode } from './plan.js'
export { type CorrectionsSummary, PLAYBOOKS, type PlaybookApplied } from './playbooks.js'
export { STIX_SCHEMAS } from './schemas/index.js'
export { type StixCallOptions, StixService } from './service.js'
export { validateObject, validateObjects } from './validate.js'
export { type StixValidateRequest, type StixValidationResult, validateStix } from './validate-request.js'

export { isWriteQuery, type Query } from './ast.js'
export type { CsvImportPolicy } from './csv/location.js'
export {
  DetachedNode,
  DetachedPath,
  DetachedRelationship,
  type DetachedValue,
  detach,
} from './detached.js'
export {
  CypherEngine,
  type CypherEngineOptions,
  type CypherMode,
  type CypherOutcome,
  type CypherRequest,
  type CypherResult,
  type CypherValidationError,
  type RowForm,
  type RunOptions,
} from './engine.js'
export { CypherError, type CypherErrorPhase, type SourcePosition } from './errors.js'
export {
  type CypherBudgets,
  DEFAULT_BUDGETS,
  emptySummary,
  type MutationSummary,
} from './executor/context.js'
export { neo4jStatusCode } from './neo4j-status.js'
export { failure as outcomeOfError } from './outcome.js'
export { bindParams } from './params.js'
export { parseQuery } from './parser.js'
export type { Plan } from './plan.js'
export { planQuery } from './planner.js'
export { NEO4J_COMPATIBLE_VERSION } from './procedures/db.js'
export {
  builtinRegistry,
  type FunctionInfo,
  type ProcedureContext,
  type ProcedureDef,
  type ProcedureField,
  type ProcedureHost,
  type ProcedureMode,
  ProcedureRegistry,
  parseSignature,
  signatureOf,
} from './procedures/index.js'
export { nodeElementId, relElementId, toJson } from './result.js'
export { CRSS, type Crs, crsBySrid, formatPoint, isPoint, PointValue } from './spatial/point.js'
export { type PullOptions, ResultCursor } from './stream-cursor.js'
export { decodeTaggedValue, encodeTaggedValue, isTaggedValue, type TaggedValue } from './tagged-value.js'
export {
  DateTimeValue,
  DateValue,
  DurationValue,
  decodeTemporalTag,
  encodeTemporalTag,
  formatTemporal,
  isTemporal,
  LocalDateTimeValue,
  LocalTimeValue,
  TEMPORAL_TAGS,
  TemporalFromFields,
  type TemporalValue,
  TimeValue,
} from './temporal/index.js'
export { type CypherMap, equals, NodeValue, PathValue, RelValue, type Value } from './values.js'

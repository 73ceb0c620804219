import { EngineError, isEngineError } from '../errors.js'
import type { GraphReader } from '../graph/types.js'
import { CypherError, type SourcePosition } from './errors.js'
import { emptySummary, type MutationSummary } from './executor/context.js'
import { neo4jStatusCode } from './neo4j-status.js'
import type { ResultCursor } from './stream-cursor.js'
import type { Value } from './values.js'

/**
 * What a Cypher run answers: the result every door serialises, the outcome with raw values behind it, and how a
 * thrown error becomes a Rejected or ValidationFailed result (or stays thrown, for durability and internal faults).
 */

export interface CypherValidationError {
  code: string
  message: string
  /** The Neo4j status code this corresponds to (`Neo.ClientError.Statement.SyntaxError`, …). */
  neo4j_code: string
  field?: string
  position?: SourcePosition
}

export interface CypherResult {
  status: 'Success' | 'Rejected' | 'ValidationFailed'
  /** Rows as JSON values; null for rejections, validation failures and validate mode. */
  data: { columns: string[]; rows: unknown[][] } | null
  /** All zeros for reads and for anything rejected. */
  mutation_summary: MutationSummary
  validation_errors: CypherValidationError[]
  warnings: string[]
  /** Bolt's row forms only (`detached`, `stream`): Neo4j's query type, r, w, rw or s (schema). */
  query_type?: 'r' | 'w' | 'rw' | 's'
  /** `rows: 'stream'` of a read that streams: its rows come from this cursor (`data.rows` is empty). */
  cursor?: ResultCursor
}

/** The outcome with raw Cypher values, for the TCK runner and tests. */
export interface CypherOutcome {
  result: CypherResult
  /** Raw rows and the graph version they refer to; present on Success with rows. */
  raw?: { columns: string[]; rows: Value[][]; graph: GraphReader }
  /** The thrown error behind a Rejected/ValidationFailed result. */
  error?: CypherError | EngineError
  classification?: 'read' | 'write'
  /** For EXPLAIN and PROFILE: Neo4j's query type and the operators (PROFILE adds the rows each produced). */
  explained?: {
    queryType: 'r' | 'w' | 'rw' | 's'
    /** The top-level operators; PROFILE adds the rows each emitted. */
    operators: { operator: string; details: string; rows?: number }[]
    /** How each MATCH is executed (scans, seeks, expansions). */
    matchOperators: string[]
    /** PROFILE: records loaded in all. */
    rows?: number
  }
  /** Neo4j's query type: r (read), w (write only), rw (read and write), s (schema). */
  queryType?: 'r' | 'w' | 'rw' | 's'
}

const QUERY_FIELD = 'query_text'

export function validationError(error: CypherError): CypherValidationError {
  return {
    code: error.code,
    message: error.message,
    neo4j_code: neo4jStatusCode(error.code, error.phase),
    field: QUERY_FIELD,
    ...(error.position ? { position: error.position } : {}),
  }
}

export function durabilityFailed(error: unknown): Error {
  if (isEngineError(error)) return error
  return new EngineError('DURABILITY_FAILED', `the commit could not be made durable: ${String(error)}`, {
    cause: error,
  })
}

export function failure(error: unknown): CypherOutcome {
  const empty = { data: null, mutation_summary: emptySummary(), warnings: [] }
  if (error instanceof CypherError) {
    // Unsupported syntax is found by the parser but is a refusal, as FACTS §3 orders it.
    const status =
      error.phase === 'compile' && error.code !== 'UNSUPPORTED_CYPHER_FEATURE'
        ? 'ValidationFailed'
        : 'Rejected'
    return { result: { status, ...empty, validation_errors: [validationError(error)] }, error }
  }
  if (isEngineError(error)) {
    // Commit-time constraint failures are query outcomes; durability and internal faults are not.
    if (error.code === 'DELETE_CONNECTED_NODE' || error.code === 'ENTITY_NOT_FOUND') {
      return {
        result: {
          status: 'Rejected',
          ...empty,
          validation_errors: [
            {
              code: error.code,
              message: error.message,
              neo4j_code: neo4jStatusCode(error.code),
              field: QUERY_FIELD,
            },
          ],
        },
        error,
      }
    }
    throw error
  }
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    const wrapped = new CypherError(
      'QUERY_BUDGET_EXCEEDED',
      'query budget exceeded for expression_depth: the query nests too deeply',
      'limit',
    )
    return {
      result: { status: 'Rejected', ...empty, validation_errors: [validationError(wrapped)] },
      error: wrapped,
    }
  }
  const wrapped = new CypherError(
    'CYPHER_RUNTIME_ERROR',
    error instanceof Error ? error.message : String(error),
    'runtime',
  )
  return {
    result: { status: 'Rejected', ...empty, validation_errors: [validationError(wrapped)] },
    error: wrapped,
  }
}

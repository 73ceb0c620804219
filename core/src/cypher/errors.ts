/** Where a problem sits in the query text (1-based line and column, 0-based offset). */
export interface SourcePosition {
  line: number
  column: number
  offset: number
}

/**
 * - `compile`: parse or semantic failure -> ValidationFailed.
 * - `runtime`: failure while executing -> Rejected.
 * - `limit`: request too large, unsupported feature, budget or permission -> Rejected.
 */
export type CypherErrorPhase = 'compile' | 'runtime' | 'limit'

/** A Cypher failure with a stable code; its phase decides the answer's status (ValidationFailed or Rejected). */
export class CypherError extends Error {
  override readonly name = 'CypherError'
  constructor(
    readonly code: string,
    message: string,
    readonly phase: CypherErrorPhase,
    readonly position?: SourcePosition,
  ) {
    super(message)
  }
}

export const syntaxError = (code: string, message: string, position?: SourcePosition): CypherError =>
  new CypherError(code, message, 'compile', position)

export const runtimeError = (code: string, message: string): CypherError =>
  new CypherError(code, message, 'runtime')

export const typeError = (message: string): CypherError =>
  new CypherError('INVALID_ARGUMENT_TYPE', message, 'runtime')

export function budgetError(dimension: string, actual: number | bigint, limit: number): CypherError {
  return new CypherError(
    'QUERY_BUDGET_EXCEEDED',
    `query budget exceeded for ${dimension}: actual ${actual}, limit ${limit}`,
    'limit',
  )
}

/** Computes line/column for an offset in `text`. */
export function positionAt(text: string, offset: number): SourcePosition {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      lineStart = i + 1
    }
  }
  return { line, column: offset - lineStart + 1, offset }
}

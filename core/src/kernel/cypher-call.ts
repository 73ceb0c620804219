import type { CypherEngine } from '../cypher/index.js'
import { EngineError } from '../errors.js'
import type { CypherCall } from './types.js'

const IDS = [
  ['workspaceId', 'workspace_id', 'INVALID_WORKSPACE_ID'],
  ['sessionId', 'session_id', 'INVALID_SESSION_ID'],
  ['budgetRef', 'budget_ref', 'INVALID_BUDGET_REF'],
] as const

export interface CallShape {
  query: string
  workspaceId?: string | undefined
  sessionId?: string | undefined
  budgetRef?: string | undefined
}

/**
 * The request-shape checks every door applies before the query is looked at (the reference answers them with
 * 400): a blank query, and a workspace, session or budget id that is given but blank. Ids come back trimmed
 * (in a copy; the call itself when nothing needed trimming).
 */
export function checkCallShape<T extends CallShape>(call: T): T {
  // A query that starts with a printable ASCII character is not blank; only the others need trimming.
  const first = call.query.charCodeAt(0)
  if (!(first > 32 && first < 127) && call.query.trim() === '')
    throw new EngineError('INVALID_QUERY', 'query must not be blank')
  let trimmed: T | undefined
  for (const [key, field, code] of IDS) {
    const value = call[key]
    if (value === undefined) continue
    const bare = value.trim()
    if (bare === '') throw new EngineError(code, `${field} must not be blank`)
    if (bare === value) continue
    trimmed ??= { ...call }
    trimmed[key] = bare as T[typeof key]
  }
  return trimmed ?? call
}

/** True when the call writes: `write`, or `auto` with a query that plans as a write. */
export function isWriteCall(engine: CypherEngine, call: CypherCall): boolean {
  if (call.mode === 'write') return true
  if (call.mode !== 'auto') return false
  try {
    return engine.plan(call.query).isWrite
  } catch {
    return false // the run reports the compile error
  }
}

/**
 * API errors in words a person understands. The service's own message is kept after the sentence: it names
 * the budget or record concerned. A token never appears in either (the service never echoes one).
 */
export interface ApiProblem {
  /** HTTP status; 0 when the service could not be reached. */
  status: number
  code: string
  message: string
}

const SENTENCES: Readonly<Record<string, string>> = {
  AUTH_REQUIRED: 'No token was sent. Enter the service token to continue.',
  AUTH_INVALID: 'The token was not accepted: it is wrong or has expired. Enter the current token.',
  NOT_FOUND: 'Not found: the record does not exist or is not visible in this workspace.',
  SESSION_NOT_FOUND: 'Not found: this session does not exist (check the link).',
  TEMPORAL_BOUNDARY_NOT_FOUND:
    'Not found: this boundary is not part of the session or is no longer retained.',
  INVALID_TEMPORAL_BOUNDARY: 'This boundary cannot be shown.',
  INVALID_VISUALIZATION_PROJECTION: 'The projection budget is not valid.',
  QUERY_BUDGET_EXCEEDED: 'Budget exceeded: the query needs more than its budget allows. Narrow it down.',
  BUDGET_EXCEEDED: 'Budget exceeded: the operation needs more than its budget allows.',
  INVALID_BUDGET: 'A budget is outside its allowed range.',
  RATE_LIMITED: 'Too many requests: wait a moment and try again.',
  REQUEST_TIMEOUT: 'The service took too long to answer. Try a smaller budget or a narrower query.',
  SERVICE_DRAINING: 'The service is shutting down.',
  NO_SEED: 'Nothing in the graph matches this search.',
  AMBIGUOUS_SEED: 'The search matches several records equally well: add a word to tell them apart.',
  OVERBROAD_OBJECTIVE: 'The search is too broad: use more specific words.',
  INVALID_SEED_REQUEST: 'The search request is not valid.',
  SEMANTIC_PROVIDER_UNAVAILABLE: 'Semantic search is not available on this service (no embedding provider).',
  PERMISSION_DENIED: 'This service does not allow that operation for your deployment.',
  INVALID_REQUEST: 'The request was refused as malformed.',
  NETWORK: 'The service cannot be reached. Check that it is running.',
}

const BY_STATUS: Readonly<Record<number, string>> = {
  401: SENTENCES.AUTH_INVALID!,
  404: SENTENCES.NOT_FOUND!,
  429: SENTENCES.RATE_LIMITED!,
  504: SENTENCES.REQUEST_TIMEOUT!,
}

export function describeProblem(problem: ApiProblem): string {
  const sentence =
    SENTENCES[problem.code] ??
    BY_STATUS[problem.status] ??
    `The service refused the request (${problem.code}).`
  const detail = problem.message.trim()
  return detail === '' || problem.code === 'NETWORK' ? sentence : `${sentence} (${detail})`
}

/** Whether the problem means the token must be entered again. */
export const isAuthProblem = (problem: ApiProblem): boolean => problem.status === 401

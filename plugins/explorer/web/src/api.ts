import { type ApiProblem, describeProblem } from './error-words.js'
import type {
  CypherResult,
  ExplorerSession,
  Projection,
  RecallResult,
  SeedCandidate,
  Timeline,
  TraceVersion,
} from './types.js'

/** A refused or failed call, with the words to show for it. */
export class ApiError extends Error {
  constructor(readonly problem: ApiProblem) {
    super(describeProblem(problem))
  }
}

/** Recall limits the page asks for: small enough to draw, within the contract's maxima. */
const RECALL_LIMITS = {
  max_items: 25,
  max_depth: 3,
  max_payload_bytes: 1_048_576,
  max_cost: 10_000,
  timeout_ms: 2_000,
  supernode_threshold: 500,
}

/**
 * The bearer-protected JSON API as the page uses it. The token is read for each call (it can be replaced at any
 * time) and only ever sent in the Authorization header.
 */
export class Api {
  constructor(private readonly token: () => string | null) {}

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' }
    const token = this.token()
    if (token !== null) headers.authorization = `Bearer ${token}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await fetch(path, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        cache: 'no-store',
        credentials: 'omit',
      })
    } catch {
      throw new ApiError({ status: 0, code: 'NETWORK', message: '' })
    }
    const json = (await response.json().catch(() => null)) as {
      ok?: boolean
      result?: T
      error?: { code?: string; message?: string }
    } | null
    if (!response.ok || json === null || json.ok !== true) {
      throw new ApiError({
        status: response.status,
        code: json?.error?.code ?? `HTTP_${response.status}`,
        message: json?.error?.message ?? response.statusText,
      })
    }
    return json.result as T
  }

  async sessions(includeStopped: boolean): Promise<ExplorerSession[]> {
    const result = await this.call<{ sessions: ExplorerSession[] }>(
      'GET',
      `/v1/explorer/sessions?include_stopped=${includeStopped}`,
    )
    return result.sessions
  }

  timeline(session: string): Promise<Timeline> {
    return this.call('GET', `/v1/explorer/sessions/${encodeURIComponent(session)}/timeline`)
  }

  graph(session: string, query: Record<string, string>): Promise<Projection> {
    const q = new URLSearchParams(query).toString()
    return this.call('GET', `/v1/explorer/sessions/${encodeURIComponent(session)}/graph?${q}`)
  }

  seedSearch(objective: string, workspaceId: string): Promise<{ candidates: SeedCandidate[] }> {
    return this.call('POST', '/v1/seed/search', { objective, workspace_id: workspaceId, top_k: 10 })
  }

  cypherRead(query: string, workspaceId: string): Promise<CypherResult> {
    return this.call('POST', '/v1/cypher/read', { query, workspace_id: workspaceId })
  }

  private async memory<T>(operation: string, input: unknown): Promise<T> {
    const result = await this.call<{ operation: string; result: T }>('POST', '/v1/memory/operations', {
      contract_version: 'v1',
      operation,
      input,
    })
    return result.result
  }

  recall(objective: string): Promise<RecallResult> {
    return this.memory('recall', { objective, seed_ids: [], limits: RECALL_LIMITS })
  }

  trace(memoryId: string): Promise<{ versions: TraceVersion[] }> {
    return this.memory('trace', { target: { kind: 'memory', id: memoryId } })
  }
}

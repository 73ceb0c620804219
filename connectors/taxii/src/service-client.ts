import { createServiceClient, type ServiceClient } from '@service/client'
import { IMPORT_METRIC_KEYS, type ImportMetrics, zeroImportMetrics } from '@service/core/stix'
import type { StixBundle } from './bundles.js'
import { type HttpDeps, type RetryPolicy, requestWithRetry } from './http.js'
import { describeError } from './log.js'
import type { ConnectorSettings } from './settings.js'
import type { Stopper } from './stopper.js'

export type ServiceSettings = Pick<
  ConnectorSettings,
  'serviceBaseUrl' | 'serviceAuthToken' | 'workspaceId' | 'serviceTimeoutMs' | 'readyTimeoutMs'
>

/** `metrics` of the import result (the server's own type); each count summed over a cycle's requests. */
export type ImportCounts = ImportMetrics
export const zeroCounts = zeroImportMetrics

/** The server refused the import or did not confirm it; the cursor must not move. */
export class ImportError extends Error {
  override readonly name = 'ImportError'
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message)
  }
}

export class NotReadyError extends Error {
  override readonly name = 'NotReadyError'
}

/** Polls `/health/ready` until it answers 200, with a growing pause, for at most `readyTimeoutMs`. */
export async function waitForReady(
  http: HttpDeps,
  settings: ServiceSettings,
  stopper: Stopper,
  now: () => number = Date.now,
): Promise<boolean> {
  const deadline = now() + settings.readyTimeoutMs
  let pause = 250
  for (let attempt = 1; ; attempt++) {
    let outcome: string
    try {
      const { response } = await serviceClient(settings, http.fetch).GET('/health/ready', {
        signal: AbortSignal.timeout(Math.min(settings.serviceTimeoutMs, 10_000)),
        parseAs: 'stream',
      })
      await response.body?.cancel()
      if (response.status === 200) {
        http.log('info', 'service_ready', { attempts: attempt })
        return true
      }
      outcome = `HTTP ${response.status}`
    } catch (error) {
      outcome = describeError(error)
    }
    if (stopper.stopped) return false
    if (now() + pause > deadline) {
      throw new NotReadyError(`service not ready after ${settings.readyTimeoutMs} ms (last: ${outcome})`)
    }
    if (attempt === 1 || attempt % 10 === 0)
      http.log('info', 'waiting_for_service', { attempt, last: outcome })
    await stopper.sleep(pause)
    if (stopper.stopped) return false
    pause = Math.min(pause * 2, 5_000)
  }
}

/**
 * The typed client of the server (@service/client, generated from its /openapi.json) over the connector's own
 * fetch: tests script that fetch, and `send` may add retries.
 */
function serviceClient(settings: ServiceSettings, send: HttpDeps['fetch']): ServiceClient {
  return createServiceClient({
    baseUrl: settings.serviceBaseUrl,
    token: settings.serviceAuthToken,
    fetch: async (request: Request) =>
      send(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === null ? {} : { body: await request.text() }),
        signal: request.signal,
      }),
  })
}

/**
 * POSTs one bundle to `/v1/import/stix` (retrying network errors, 408, 429 and 5xx); resolves with the
 * result's counts only on 2xx with `ok: true`.
 */
export async function importBundle(
  http: HttpDeps,
  policy: RetryPolicy,
  settings: ServiceSettings,
  bundle: StixBundle,
): Promise<ImportCounts> {
  const retrying: HttpDeps['fetch'] = async (url, init) => {
    const { signal: _once, ...rest } = init
    const result = await requestWithRetry(http, policy, 'import', url, {
      ...rest,
      timeoutMs: settings.serviceTimeoutMs,
    })
    return new Response(result.text === '' ? null : result.text, {
      status: result.status,
      headers: result.headers,
    })
  }
  let answer: { data?: unknown; error?: unknown; response: Response }
  try {
    answer = await serviceClient(settings, retrying).POST('/v1/import/stix', {
      body: { bundle: bundle as never, workspace_id: settings.workspaceId },
    })
  } catch (error) {
    if (error instanceof SyntaxError)
      throw new ImportError('import answered a body that is not JSON', 0, undefined)
    throw error
  }
  const status = answer.response.status
  const body = (answer.data ?? answer.error) as
    | {
        ok?: unknown
        result?: { metrics?: Record<string, unknown> }
        error?: { code?: unknown; message?: unknown }
      }
    | undefined
  const ok = status >= 200 && status < 300 && typeof body === 'object' && body?.ok === true
  if (!ok) {
    const envelope = typeof body === 'object' ? body : undefined
    const code = typeof envelope?.error?.code === 'string' ? envelope.error.code : undefined
    const message =
      typeof envelope?.error?.message === 'string' ? `: ${envelope.error.message.slice(0, 300)}` : ''
    throw new ImportError(`import answered HTTP ${status}${code ? ` ${code}` : ''}${message}`, status, code)
  }
  const counts = zeroCounts()
  for (const key of IMPORT_METRIC_KEYS) {
    const value = body?.result?.metrics?.[key]
    if (typeof value === 'number') counts[key] = value
  }
  return counts
}

export function addCounts(total: ImportCounts, more: ImportCounts): ImportCounts {
  const sum = zeroCounts()
  for (const key of IMPORT_METRIC_KEYS) sum[key] = total[key] + more[key]
  return sum
}

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
      const response = await http.fetch(`${settings.serviceBaseUrl}/health/ready`, {
        signal: AbortSignal.timeout(Math.min(settings.serviceTimeoutMs, 10_000)),
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

interface ImportResponse {
  ok?: unknown
  result?: { metrics?: Record<string, unknown> }
  error?: { code?: unknown; message?: unknown }
}

/** POSTs one bundle to `/v1/import/stix`; resolves with the result's counts only on 2xx with `ok: true`. */
export async function importBundle(
  http: HttpDeps,
  policy: RetryPolicy,
  settings: ServiceSettings,
  bundle: StixBundle,
): Promise<ImportCounts> {
  const result = await requestWithRetry(http, policy, 'import', `${settings.serviceBaseUrl}/v1/import/stix`, {
    method: 'POST',
    headers: { authorization: `Bearer ${settings.serviceAuthToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ bundle, workspace_id: settings.workspaceId }),
    timeoutMs: settings.serviceTimeoutMs,
  })
  let body: ImportResponse | undefined
  try {
    body = JSON.parse(result.text) as ImportResponse
  } catch {
    body = undefined
  }
  const ok = result.status >= 200 && result.status < 300 && body?.ok === true
  if (!ok) {
    const code = typeof body?.error?.code === 'string' ? body.error.code : undefined
    const message = typeof body?.error?.message === 'string' ? `: ${body.error.message.slice(0, 300)}` : ''
    throw new ImportError(
      `import answered HTTP ${result.status}${code ? ` ${code}` : ''}${message}`,
      result.status,
      code,
    )
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

import { describeError, type Logger } from './log.js'

export type FetchFn = (url: string, init: RequestInit) => Promise<Response>

export interface RetryPolicy {
  /** Retries after the first attempt; 0 means a single attempt. */
  maxRetries: number
  baseMs: number
  maxMs: number
}

export interface HttpDeps {
  fetch: FetchFn
  log: Logger
  sleep(ms: number): Promise<void>
  /** In [0, 1); injected so tests get exact delays. */
  random(): number
}

export interface HttpResult {
  status: number
  headers: Headers
  text: string
}

/** The request never produced a response, even after the retries. */
export class RequestFailedError extends Error {
  override readonly name = 'RequestFailedError'
}

// A Retry-After longer than this is treated as this: a misbehaving peer must not park the connector for hours.
const RETRY_AFTER_CAP_MS = 300_000

export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 429 || status >= 500

/** Exponential backoff with equal jitter: half the step is fixed, half random, so retries spread out. */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number): number {
  const step = Math.min(policy.maxMs, policy.baseMs * 2 ** retry)
  return Math.round(step / 2 + random() * (step / 2))
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - now
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS) : undefined
}

/**
 * One HTTP exchange with retries on network errors, timeouts, 408, 429 and 5xx (honouring Retry-After). The body
 * is read inside the attempt, so a connection cut mid-body is retried too. After the last retry a retryable
 * status is returned to the caller like any other; a network failure throws RequestFailedError.
 */
export async function requestWithRetry(
  deps: HttpDeps,
  policy: RetryPolicy,
  target: string,
  url: string,
  init: RequestInit & { timeoutMs: number },
): Promise<HttpResult> {
  const { timeoutMs, ...requestInit } = init
  for (let retry = 0; ; retry++) {
    let result: HttpResult | undefined
    let failure: unknown
    try {
      const response = await deps.fetch(url, { ...requestInit, signal: AbortSignal.timeout(timeoutMs) })
      result = { status: response.status, headers: response.headers, text: await response.text() }
    } catch (error) {
      failure = error
    }
    const retryable = result === undefined || isRetryableStatus(result.status)
    if (!retryable && result !== undefined) return result
    if (retry >= policy.maxRetries) {
      if (result !== undefined) return result
      throw new RequestFailedError(
        `${target} failed after ${retry + 1} attempts: ${describeError(failure)}`,
        {
          cause: failure,
        },
      )
    }
    const delay =
      retryAfterMs(result?.headers.get('retry-after') ?? null) ?? backoffDelay(policy, retry, deps.random)
    deps.log('warn', 'retry', {
      target,
      attempt: retry + 1,
      delay_ms: delay,
      ...(result === undefined ? { error: describeError(failure) } : { status: result.status }),
    })
    await deps.sleep(delay)
  }
}

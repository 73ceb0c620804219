/** Why a call stopped waiting: its time budget ran out, or the request it serves went away. */
export type StopReason = { kind: 'timeout' } | { kind: 'aborted'; reason: unknown }

export interface Deadline {
  /** Rejects with the StopReason when the budget runs out or the signal aborts; never resolves. */
  readonly stopped: Promise<never>
  dispose(): void
}

export const isStopReason = (value: unknown): value is StopReason =>
  typeof value === 'object' &&
  value !== null &&
  ((value as StopReason).kind === 'timeout' || (value as StopReason).kind === 'aborted')

/** A timer and an optional abort signal folded into one promise to race a call against. */
export function startDeadline(timeoutMs: number, signal?: AbortSignal): Deadline {
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const stopped = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject({ kind: 'timeout' } satisfies StopReason), timeoutMs)
    if (signal !== undefined) {
      const abort = () => reject(abortReason(signal.reason))
      if (signal.aborted) abort()
      else {
        onAbort = abort
        signal.addEventListener('abort', abort, { once: true })
      }
    }
  })
  // The race may be won by the call; an unobserved rejection here must not crash the process.
  stopped.catch(() => undefined)
  return {
    stopped,
    dispose() {
      if (timer !== undefined) clearTimeout(timer)
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
    },
  }
}

/** The HTTP layer aborts a request's signal with a REQUEST_TIMEOUT error when its handler budget runs out. */
function abortReason(reason: unknown): StopReason {
  return (reason as { code?: unknown } | undefined)?.code === 'REQUEST_TIMEOUT'
    ? { kind: 'timeout' }
    : { kind: 'aborted', reason }
}

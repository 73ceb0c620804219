import pino from 'pino'

/** How long a log line may wait in memory before it is written: lines of that window share one write. */
export const LOG_FLUSH_MS = 20
/** Buffered bytes that start a write at once, whatever the window. */
const LOG_FLUSH_BYTES = 8 * 1024

/**
 * stdout (or `fd`) through pino's asynchronous destination, batched: each line is appended to a buffer and
 * written with the others of a `LOG_FLUSH_MS` window (or as soon as `LOG_FLUSH_BYTES` are waiting), so a
 * request's access line costs no write of its own (one asynchronous write per request cost more CPU than an
 * idempotent replay). pino writes what is buffered synchronously when the process exits (its exit handler
 * on the destination), so only a kill -9 loses lines: at most the last window's.
 */
export function batchedDestination(fd = 1, flushMs = LOG_FLUSH_MS): pino.DestinationStream {
  const sonic = pino.destination({ dest: fd, sync: false, minLength: LOG_FLUSH_BYTES })
  let timer: NodeJS.Timeout | null = null
  const flush = () => {
    timer = null
    try {
      sonic.flush()
    } catch {
      // Destroyed (the process is exiting, or stdout closed): nothing is left to write to.
    }
  }
  return {
    write(line: string) {
      sonic.write(line)
      if (timer === null) {
        timer = setTimeout(flush, flushMs)
        // A pending flush does not keep the process alive: the exit handler writes the rest.
        timer.unref()
      }
    },
  }
}

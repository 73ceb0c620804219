import { randomBytes } from 'node:crypto'

/**
 * Transaction ids: `tx--<16 hex digits drawn once per process>-<counter in base 36>`. A counter costs a
 * fraction of a `randomUUID` per write and makes a shorter log line. Ids stay unique across restarts and
 * processes because each process draws a fresh 64-bit random prefix: two processes share one only with
 * probability ~n²/2^65 over n processes, and within a process the counter never repeats.
 */
const PREFIX = `tx--${randomBytes(8).toString('hex')}-`
let counter = 0

export function nextTxId(): string {
  return PREFIX + (++counter).toString(36)
}

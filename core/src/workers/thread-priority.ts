import { constants, getPriority, setPriority } from 'node:os'

/**
 * Lowers the calling worker thread's scheduling priority (nice 10), so that on a busy machine the pool's
 * CPU work (a checkpoint's encoding, hashing and writing) gives way to the event loop instead of taking a
 * core from it: the event loop waits less, and the background task only takes longer. Linux only, where
 * nice is per thread; elsewhere `setPriority(0, …)` would lower the whole process, so it is left alone.
 * Best effort: a sandbox that forbids it leaves the priority as it was.
 */
export function lowerThreadPriority(): void {
  if (process.platform !== 'linux') return
  try {
    // Never above the process's own niceness: a server started at nice 15 keeps its pool at 15.
    setPriority(0, Math.max(getPriority(0), constants.priority.PRIORITY_BELOW_NORMAL))
  } catch {
    // the thread keeps the normal priority
  }
}

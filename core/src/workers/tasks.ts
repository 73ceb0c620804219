// The worker pool's entry: every task a worker can run, by export name. Kept to leaf modules so a worker
// loads little of the engine.
import { lowerThreadPriority } from './thread-priority.js'

// Everything the pool runs is background work the event loop must not wait for.
lowerThreadPriority()

export { writeCheckpointFile } from '../storage/checkpoint-file-task.js'

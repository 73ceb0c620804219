// The worker pool's entry: every task a worker can run, by export name. Kept to leaf modules so a worker
// loads little of the engine.
export { writeCheckpointFile } from '../storage/checkpoint-file-task.js'

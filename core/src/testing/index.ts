/** Test helpers for packages that build on the engine. */
import type { Engine } from '../runtime/index.js'

export { openEngine as openTestEngine } from '../runtime/index.js'

/** Makes the engine's next write-ahead-log write fail as a broken disk would (persistent engines only). */
export function injectStorageFailure(engine: Engine, error = new Error('EIO: injected disk failure')): void {
  ;(engine as unknown as { injectStorageFailure(error: Error): void }).injectStorageFailure(error)
}
/** The injected storage failure clears: the engine's recovery in place then resumes writes by itself. */
export function clearStorageFailure(engine: Engine): void {
  ;(engine as unknown as { clearStorageFailure(): void }).clearStorageFailure()
}
export {
  type ConformanceFixture,
  checkMemoryConformance,
  type DoorAnswer,
  type MemoryDoor,
} from './memory-conformance.js'
export {
  context as memoryContext,
  inner as memoryInner,
  limits as memoryLimits,
  memoryInput,
  op as memoryOperation,
} from './memory-requests.js'
export { refBulkCreates, refCreate, refRelationship, refWriteRequest } from './ref-requests.js'

/** Test helpers for packages that build on the engine. */
import type { Engine } from '../runtime/index.js'

export { openEngine as openTestEngine } from '../runtime/index.js'

/** Makes the engine's next write-ahead-log write fail as a broken disk would (persistent engines only). */
export function injectStorageFailure(engine: Engine, error = new Error('EIO: injected disk failure')): void {
  ;(engine as unknown as { injectStorageFailure(error: Error): void }).injectStorageFailure(error)
}
export {
  type ConformanceFixture,
  checkMemoryConformance,
  type DoorAnswer,
  type MemoryDoor,
} from './memory-conformance.js'

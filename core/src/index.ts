export type { DurabilityReport, RecoveryReport } from './engine/durability.js'
export {
  type Engine,
  type EngineOptions,
  type EngineState,
  openEngine,
  type StorageMode,
  type StorageOptions,
} from './engine/engine.js'
export { EngineError, type EngineErrorCategory, isEngineError } from './errors.js'
export { RECORD_FORMAT, SERVICE_NAME, SERVICE_VERSION, STORAGE_VERSION } from './version.js'

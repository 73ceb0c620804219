export type { Engine, EngineOptions, ExplorerApi } from './engine.js'
export { openEngine } from './open-engine.js'

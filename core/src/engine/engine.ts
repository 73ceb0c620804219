import { EngineError } from '../errors.js'
import { type DurabilityReport, ephemeralDurability } from './durability.js'

export type StorageMode = 'ephemeral' | 'persistent'

export interface StorageOptions {
  mode: StorageMode
  /** Graph directory; required in persistent mode. */
  dir?: string
  requireFsync?: boolean
  strictRecovery?: boolean
}

export interface EngineOptions {
  storage?: StorageOptions
  /** Milliseconds since the epoch; injectable so tests control time. */
  now?: () => number
}

export type EngineState = 'open' | 'closing' | 'closed'

/**
 * The embedded API. The HTTP server is one door onto it; an application can hold it in-process.
 * Feature areas (read/write, memory, seed search, export, sessions) are added to this object as they land.
 */
export interface Engine {
  readonly storageMode: StorageMode
  readonly openedAtMs: number
  state(): EngineState
  /** True once recovery finished and the engine accepts work. */
  isReady(): boolean
  durability(): DurabilityReport
  /** Flushes and releases everything; idempotent. */
  close(): Promise<void>
}

export async function openEngine(options: EngineOptions = {}): Promise<Engine> {
  const storage = options.storage ?? { mode: 'ephemeral' }
  const now = options.now ?? Date.now
  if (storage.mode === 'persistent') {
    // Persistent storage (WAL, checkpoints, recovery) is a separate component; until it is present an
    // operator asking for it must get a refusal, never silently ephemeral state.
    throw new EngineError(
      'STORAGE_MODE_UNAVAILABLE',
      'persistent storage is not available in this build; use SERVICE_STORAGE_MODE=ephemeral',
      'unavailable',
    )
  }
  let state: EngineState = 'open'
  const openedAtMs = now()
  return {
    storageMode: storage.mode,
    openedAtMs,
    state: () => state,
    isReady: () => state === 'open',
    durability: () => ephemeralDurability(),
    async close() {
      if (state === 'closed') return
      state = 'closing'
      state = 'closed'
    },
  }
}

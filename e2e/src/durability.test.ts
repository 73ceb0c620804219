import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'vitest'
import { killNineRounds } from './kill9-support.js'

const ROUNDS = Number(process.env.KILL9_ROUNDS ?? 20)
/**
 * The budget grows with the rounds: a round is a server start (4 to 6 s on a busy 2-core machine),
 * up to 450 ms of writes and a kill; the final check reads three counts per round. Ten seconds a round
 * leaves room on a machine that is busy with other work, so `KILL9_ROUNDS=1000` (the soak) runs to its end.
 */
const TIMEOUT_MS = 120_000 + ROUNDS * 10_000

describe('durability under kill -9', () => {
  it(
    `keeps every acknowledged write and never a half-applied one (${ROUNDS} rounds)`,
    async ({ signal }) => {
      const root = mkdtempSync(join(tmpdir(), 'kill9-'))
      try {
        const env = {
          SERVICE_STORAGE_MODE: 'persistent',
          SERVICE_STORAGE_DIR: join(root, 'graph'),
          SERVICE_LOG_LEVEL: 'warn',
        }
        await killNineRounds(env, ROUNDS, signal)
      } finally {
        rmSync(root, { recursive: true, force: true })
      }
    },
    TIMEOUT_MS,
  )
})

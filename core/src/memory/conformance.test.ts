import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isEngineError } from '../errors.js'
import { openEngine } from '../runtime/index.js'
import {
  type ConformanceFixture,
  checkMemoryConformance,
  type MemoryDoor,
} from '../testing/memory-conformance.js'
import { context } from '../testing/memory-requests.js'

const fixtureFile = join(
  resolve(process.env.SHARED_DIR ?? '/work/shared'),
  'reference',
  'memory-v1-conformance.json',
)
const present = existsSync(fixtureFile)
if (!present) console.warn(`memory conformance: ${fixtureFile} not found (set SHARED_DIR); skipped`)

describe.skipIf(!present)('memory-v1-conformance.json through the embedded door', () => {
  it('holds every operation’s required fields, mutation class and every invariant', async () => {
    const fixture = JSON.parse(readFileSync(fixtureFile, 'utf8')) as ConformanceFixture
    const engine = await openEngine()
    const door = (workspace: string): MemoryDoor => ({
      send: async (request) => {
        try {
          return {
            ok: true,
            body: await engine.memory.execute(request, context({ workspace_id: workspace })),
          }
        } catch (error) {
          if (!isEngineError(error)) throw error
          return { ok: false, code: error.code, message: error.message }
        }
      },
    })
    expect(
      await checkMemoryConformance(fixture, door('workspace--conformance'), door('workspace--other')),
    ).toEqual([])
    await engine.close()
  })
})

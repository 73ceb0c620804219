import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import ratchet from './ratchet.json' with { type: 'json' }
import { isTargetFeature, listFeatures, runFeatures, tally } from './runner.js'

// The TCK lives in the shared directory beside the repository, never in the repository itself.
const shared = process.env.SHARED_DIR ?? resolve(import.meta.dirname, '../../../../shared')
const root = resolve(shared, 'tck', 'features')
const present = existsSync(root)

describe.skipIf(!present)(
  `openCypher TCK ratchet${present ? '' : ' (skipped: no TCK features at ' + root + ')'}`,
  () => {
    it('passes at least the recorded number of target-area scenarios', async () => {
      const files = listFeatures(root).filter((file) => isTargetFeature(root, file))
      const results = await runFeatures(root, files)
      const t = tally(results)
      expect(results.length).toBe(ratchet.target.scenarios)
      expect(t.passed).toBeGreaterThanOrEqual(ratchet.target.passed)
      // The team's bar: 85% of the target area.
      expect(t.passed / results.length).toBeGreaterThanOrEqual(0.85)
    }, 60_000)

    it('passes at least the recorded number of scenarios overall', async () => {
      const results = await runFeatures(root, listFeatures(root))
      expect(tally(results).passed).toBeGreaterThanOrEqual(ratchet.overall.passed)
    }, 60_000)
  },
)

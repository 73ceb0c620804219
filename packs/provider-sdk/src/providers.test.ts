// Runs the C provider tests (build all five providers, the test providers and the C driver, then run it)
// so that the unit project covers the native code too.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const script = join(dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'test-providers.mjs')
const compilerPresent = spawnSync(process.env.CC ?? 'cc', ['--version']).status === 0

describe('native domain providers', () => {
  // Without a C compiler the providers cannot exist; CI always has one and must not skip.
  it.skipIf(!compilerPresent && !process.env.CI)(
    'pass the ABI, envelope, limit and rule tests of the C driver',
    () => {
      const result = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 280_000 })
      const output = `${result.stdout}\n${result.stderr}`
      expect(result.status, output).toBe(0)
      expect(output).toMatch(/\b\d+ passed, 0 failed\b/)
    },
    300_000,
  )
})

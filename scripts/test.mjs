// The README's second command: installs and builds if needed, then runs everything CI runs:
// lint, type-check (sources and tests), layering (import cycles), unit tests, e2e tests against the real server process.

import { join } from 'node:path'
import { build, install, installed, root, run } from './lib/run.mjs'
import { sharedDir, sharedPresent } from './shared-dir.mjs'

if (!installed() || process.env.CI) install()
build()
if (!sharedPresent()) {
  const message = `shared test data not found at ${sharedDir} (set SHARED_DIR); tests that need it will be skipped`
  if (process.env.CI) {
    process.stderr.write(`✖ ${message}; CI requires it\n`)
    process.exit(1)
  }
  process.stderr.write(`⚠ ${message}\n`)
}
const bin = (name, ...rest) => join(root, 'node_modules', name, ...rest)
run(process.execPath, [bin('@biomejs', 'biome', 'bin', 'biome'), 'check', '.'])
run(process.execPath, [bin('typescript', 'bin', 'tsc'), '-p', 'tsconfig.tests.json'])
// Layering: no import cycle (type-only imports included), dependencies pointing host -> plugins -> core.
run(process.execPath, [
  bin('dependency-cruiser', 'bin', 'dependency-cruise.mjs'),
  '--config',
  '.dependency-cruiser.cjs',
  ...['core/src', 'plugins', 'host/src', 'connectors', 'clients', 'tools/src'],
])
run(process.execPath, [bin('vitest', 'vitest.mjs'), 'run', '--project', 'unit'], {
  env: { SHARED_DIR: sharedDir },
})
run(process.execPath, [bin('vitest', 'vitest.mjs'), 'run', '--project', 'e2e'], {
  env: { SHARED_DIR: sharedDir },
})

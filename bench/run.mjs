#!/usr/bin/env node
// `pnpm bench [area]`: runs one benchmark area and prints its figures. Areas register here as they land.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const areas = {
  health: 'health.mjs',
  cypher: 'cypher.mjs',
  stix: 'stix.mjs',
  seed: 'seed.mjs',
  storage: 'storage.mjs',
  explorer: 'explorer.mjs',
  providers: 'providers.mjs',
  memory: 'memory.mjs',
  ref: 'ref.mjs',
  taxii: 'taxii.mjs',
  mcp: 'mcp.mjs',
  bolt: 'bolt.mjs',
  footprint: 'footprint.mjs',
}
const area = process.argv[2] ?? 'health'
const script = areas[area]
if (script === undefined || !existsSync(join(here, script))) {
  const available = Object.entries(areas)
    .filter(([, file]) => existsSync(join(here, file)))
    .map(([name]) => name)
  process.stderr.write(`unknown benchmark area '${area}'; available: ${available.join(', ')}\n`)
  process.exit(2)
}
const result = spawnSync(process.execPath, ['--expose-gc', join(here, script), ...process.argv.slice(3)], {
  stdio: 'inherit',
})
process.exit(result.status ?? 1)

#!/usr/bin/env node
import { existsSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isTargetFeature, listFeatures, runFeatures, type ScenarioResult, tally } from './runner.js'

/**
 * openCypher TCK runner. Usage: node tools/dist/tck/run.js [FEATURES_DIR] [--target] [--verbose] [--filter TEXT]
 * The features come from the shared directory (never copied into the repo): FEATURES_DIR, else
 * $SHARED_DIR/tck/features, else ../shared/tck/features beside the repository root.
 */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

function featuresDir(arg: string | undefined): string {
  if (arg !== undefined) return isAbsolute(arg) ? arg : resolve(process.cwd(), arg)
  const shared = process.env.SHARED_DIR ?? '../shared'
  return join(isAbsolute(shared) ? shared : resolve(repoRoot, shared), 'tck', 'features')
}

const pct = (n: number, d: number): string => (d === 0 ? '0.0' : ((100 * n) / d).toFixed(1))

function line(label: string, results: ScenarioResult[]): string {
  const t = tally(results)
  return `${label}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped (${pct(t.passed, results.length)}% of ${results.length})`
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const targetOnly = args.includes('--target')
  const verbose = args.includes('--verbose')
  const filterAt = args.indexOf('--filter')
  const filter = filterAt >= 0 ? args[filterAt + 1] : undefined
  const positional = args.filter((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--filter')
  const root = featuresDir(positional[0])
  if (!existsSync(root)) {
    console.error(`tck: features directory not found: ${root}`)
    process.exitCode = 2
    return
  }
  let files = listFeatures(root)
  if (targetOnly) files = files.filter((file) => isTargetFeature(root, file))
  if (filter !== undefined) files = files.filter((file) => file.includes(filter))
  const results = await runFeatures(root, files)
  const byArea = new Map<string, ScenarioResult[]>()
  for (const result of results) byArea.set(result.area, [...(byArea.get(result.area) ?? []), result])
  for (const [area, list] of [...byArea].sort(([a], [b]) => a.localeCompare(b))) console.log(line(area, list))
  if (verbose) {
    for (const result of results) {
      if (result.status === 'failed')
        console.log(`FAIL ${result.area}/${result.feature} ${result.name}\n  ${result.reason}`)
    }
  }
  const targetFiles = new Set(files.filter((file) => isTargetFeature(root, file)))
  const target = results.filter((r) =>
    [...targetFiles].some((file) => file.endsWith(`${r.area}/${r.feature}.feature`)),
  )
  console.log(line('target area', target))
  if (!targetOnly) console.log(line('overall', results))
  const t = tally(results)
  console.log(`tck: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`)
}

await main()

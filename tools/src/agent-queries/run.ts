#!/usr/bin/env node
import { existsSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type QueryOutcome, runAgentQueries, summarize } from './runner.js'

/**
 * The agent-query set over the ATT&CK bundles. Usage: node tools/dist/agent-queries/run.js [--aside|--all] [--verbose]
 * Without a flag it scores the tuning part; `--aside` scores the fifth kept aside (once, at the end of a piece of
 * work: never tune on it).
 */
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const shared = process.env.SHARED_DIR ?? '../shared'
const attackDir = join(isAbsolute(shared) ? shared : resolve(repoRoot, shared), 'data', 'stix', 'attack')

function line(label: string, outcomes: QueryOutcome[]): string {
  const c = summarize(outcomes)
  const pct = outcomes.length === 0 ? '0.0' : ((100 * c.passed) / outcomes.length).toFixed(1)
  return `${label.padEnd(22)} ${c.passed}/${outcomes.length} passed (${pct} %), ${c.refused} refused, ${c.wrong} wrong`
}

async function main(): Promise<void> {
  if (!existsSync(attackDir)) {
    console.error(`agent-queries: ATT&CK bundles not found at ${attackDir} (set SHARED_DIR)`)
    process.exitCode = 2
    return
  }
  const args = process.argv.slice(2)
  const part = args.includes('--all') ? 'all' : args.includes('--aside') ? 'aside' : 'tuning'
  const outcomes = await runAgentQueries(attackDir, part)
  for (const o of outcomes) {
    if (o.verdict !== 'passed' || args.includes('--verbose')) {
      console.log(`${o.verdict.padEnd(7)} ${o.query.id.padEnd(30)} ${o.detail.slice(0, 160)}`)
    }
  }
  const features = [...new Set(outcomes.map((o) => o.query.feature))].sort()
  for (const f of features)
    console.log(
      line(
        `  ${f}`,
        outcomes.filter((o) => o.query.feature === f),
      ),
    )
  console.log(line(`${part} part`, outcomes))
  if (summarize(outcomes).wrong > 0) process.exitCode = 1
}

await main()

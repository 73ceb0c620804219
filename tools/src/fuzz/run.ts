#!/usr/bin/env node
import { writeSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type CampaignReport, runCampaign } from './campaign.js'
import { TARGETS } from './targets/index.js'

/**
 * Long fuzz campaigns, outside the normal test run: `pnpm fuzz [TARGET|all] [SECONDS] [--seed N]`,
 * `pnpm fuzz --list`. With `all` the seconds are shared equally. Findings (shrunk inputs and errors) go
 * to tools/fuzz-findings/ and stdout; the exit code is 1 when there was any.
 */
const outDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../fuzz-findings')

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  if (args.includes('--list')) {
    for (const target of TARGETS) console.log(`${target.name}: ${target.description}`)
    return
  }
  const seedAt = args.indexOf('--seed')
  const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : undefined
  const positional = args.filter((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--seed')
  const name = positional[0] ?? 'all'
  const seconds = Number(positional[1] ?? 60)
  const chosen = name === 'all' ? TARGETS : TARGETS.filter((t) => t.name === name)
  if (chosen.length === 0 || !Number.isFinite(seconds) || seconds <= 0) {
    console.error(`usage: pnpm fuzz [${TARGETS.map((t) => t.name).join('|')}|all] [SECONDS] [--seed N]`)
    process.exitCode = 2
    return
  }
  let findings = 0
  let current: { report: CampaignReport; cpuBefore: NodeJS.CpuUsage } | undefined
  const tally = ({ report, cpuBefore }: NonNullable<typeof current>, note = '') => {
    const cpu = process.cpuUsage(cpuBefore)
    // Synchronous: the signal path exits right after, and a piped stdout is otherwise asynchronous.
    writeSync(
      1,
      `fuzz ${report.target}: ${report.executions} executions, ${report.findings.length} findings, ` +
        `${((cpu.user + cpu.system) / 1e6).toFixed(1)} CPU s; corpus: ${report.corpus}${note}\n`,
    )
  }
  // A campaign stopped early (Ctrl-C, kill) still prints what it did.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (current) tally(current, ' (stopped)')
      process.exit(130)
    })
  }
  for (const target of chosen) {
    const timeMs = (seconds * 1000) / chosen.length
    const cpuBefore = process.cpuUsage()
    const report = await runCampaign(target, {
      timeMs,
      ...(seed === undefined ? {} : { seed }),
      outDir,
      log: (line) => console.log(line),
      onStart: (started) => {
        current = { report: started, cpuBefore }
      },
    })
    findings += report.findings.length
    tally({ report, cpuBefore })
  }
  current = undefined
  if (findings > 0) process.exitCode = 1
}

await main()

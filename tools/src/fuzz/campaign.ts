import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as fc from 'fast-check'
import { describe } from './invariants.js'
import type { FuzzTarget } from './target.js'

export interface Finding {
  target: string
  seed: number
  path: string | undefined
  input: unknown
  error: string
}

export interface CampaignReport {
  target: string
  corpus: string
  executions: number
  findings: Finding[]
}

export interface CampaignOptions {
  /** Wall-clock budget in ms, or a number of runs (the CI smoke test uses runs: no timing). */
  timeMs?: number
  runs?: number
  seed?: number
  /** Directory for findings and the input being executed (to diagnose a hang). */
  outDir?: string
  /** Receives the report as soon as it exists, so a stopped campaign can still print its tally. */
  onStart?: (report: CampaignReport) => void
  log?: (line: string) => void
}

/** Inputs can be huge (stretched, nested): a finding is still written, cut short when it must be. */
const MAX_TEXT = 1_000_000
function json(value: unknown): string {
  try {
    const text = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)) ?? 'undefined'
    return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}… (${text.length} characters)` : text
  } catch (error) {
    return `(not printable: ${String(error)})`
  }
}

/**
 * Runs one target until its budget is spent. A failure is shrunk by fast-check, recorded, and the
 * campaign goes on with the next seed, so one defect does not end a long run.
 */
export async function runCampaign(
  target: FuzzTarget<unknown>,
  options: CampaignOptions,
): Promise<CampaignReport> {
  const prepared = await target.prepare()
  const log = options.log ?? (() => {})
  const started = Date.now()
  const report: CampaignReport = { target: target.name, corpus: prepared.corpus, executions: 0, findings: [] }
  options.onStart?.(report)
  // Per process: two campaigns may share the directory.
  const current = options.outDir
    ? join(options.outDir, `${target.name}.${process.pid}.current.json`)
    : undefined
  if (options.outDir) mkdirSync(options.outDir, { recursive: true })
  let seed = options.seed ?? Date.now() % 2 ** 31
  const property = fc.asyncProperty(prepared.arbitrary, async (input) => {
    report.executions++
    // Engine calls on an in-memory graph resolve as microtasks only; let the event loop (signals, timers) run.
    if (report.executions % 64 === 0) await new Promise((resolve) => setImmediate(resolve))
    if (current) writeFileSync(current, json(input).slice(0, MAX_TEXT))
    await prepared.check(input)
  })
  for (;;) {
    const remainingRuns =
      options.runs === undefined ? Number.MAX_SAFE_INTEGER : options.runs - report.executions
    const remainingMs = options.timeMs === undefined ? undefined : options.timeMs - (Date.now() - started)
    if (remainingRuns <= 0 || (remainingMs !== undefined && remainingMs <= 0)) break
    const details = await fc.check(property, {
      seed,
      numRuns: remainingRuns,
      ...(remainingMs === undefined
        ? {}
        : { interruptAfterTimeLimit: remainingMs, markInterruptAsFailure: false }),
    })
    // A generator that throws fails with no counterexample: still a finding, never a silent stop.
    if (details.failed) {
      const finding: Finding = {
        target: target.name,
        seed,
        path: details.counterexamplePath ?? undefined,
        input: details.counterexample?.[0],
        error: describe(details.errorInstance),
      }
      report.findings.push(finding)
      log(`FINDING ${target.name} seed=${seed}\n${json(finding.input).slice(0, 20_000)}\n${finding.error}`)
      if (options.outDir) writeFileSync(join(options.outDir, `${target.name}-${seed}.json`), json(finding))
    } else break
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
  }
  return report
}

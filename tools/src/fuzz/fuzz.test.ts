import { describe, expect, it } from 'vitest'
import { runCampaign } from './campaign.js'
import { TARGETS } from './targets/index.js'

/**
 * The CI smoke run of every fuzz target: a few hundred generated inputs each, from a fixed seed so a
 * failure reproduces (`pnpm fuzz TARGET SECONDS --seed N` runs long campaigns). Set FUZZ_RUNS to go longer.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300)

describe('fuzz targets (smoke)', () => {
  for (const target of TARGETS) {
    it(`${target.name}: ${RUNS} inputs keep every invariant`, async () => {
      const report = await runCampaign(target, { runs: RUNS, seed: 20_261_124 })
      expect(report.findings.map((f) => `${f.error}\ninput: ${JSON.stringify(f.input)}`)).toEqual([])
      expect(report.executions).toBeGreaterThanOrEqual(RUNS)
    }, 120_000)
  }

  it('lists a target for each engine surface fuzzed so far', () => {
    expect(TARGETS.map((t) => t.name)).toEqual([
      'cypher-grammar',
      'cypher-mutation',
      'stix',
      'seed',
      'memory',
      'ref',
      'bolt-wire',
    ])
  })
})

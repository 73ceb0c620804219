import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BundleFacts } from './bundle-facts.js'
import { isKeptAside } from './query-set.js'
import ratchet from './ratchet.json' with { type: 'json' }
import { AGENT_QUERIES, runAgentQueries } from './runner.js'

// The ATT&CK bundles live in the shared directory beside the repository, never in the repository itself.
const shared = process.env.SHARED_DIR ?? resolve(import.meta.dirname, '../../../../shared')
const attackDir = resolve(shared, 'data', 'stix', 'attack')
const present = existsSync(attackDir)

describe('the agent-query set', () => {
  it('has at least 60 queries with unique ids, a fifth kept aside', () => {
    expect(AGENT_QUERIES.length).toBeGreaterThanOrEqual(60)
    expect(new Set(AGENT_QUERIES.map((q) => q.id)).size).toBe(AGENT_QUERIES.length)
    const aside = AGENT_QUERIES.filter((_, i) => isKeptAside(i)).length
    expect(aside).toBe(Math.floor(AGENT_QUERIES.length / 5))
    expect(AGENT_QUERIES.length - aside).toBe(ratchet.tuning.queries)
  })

  it.skipIf(!present)(
    `expects a non-empty answer wherever one is computed${present ? '' : ` (skipped: no bundles at ${attackDir})`}`,
    () => {
      const facts = new BundleFacts(attackDir)
      for (const query of AGENT_QUERIES) {
        if (!query.expect || query.id === 'explain') continue
        const rows = query.expect(facts)
        expect(rows.length, query.id).toBeGreaterThan(0)
        for (const row of rows) for (const value of row) expect(value, query.id).not.toBeUndefined()
      }
    },
  )

  it.skipIf(!present)(
    'answers the tuning part at least as often as recorded, with no new wrong answer',
    async () => {
      const outcomes = await runAgentQueries(attackDir, 'tuning')
      const passed = outcomes.filter((o) => o.verdict === 'passed').length
      const wrong = outcomes.filter((o) => o.verdict === 'wrong').map((o) => `${o.query.id}: ${o.detail}`)
      expect(wrong.filter((w) => !ratchet.knownWrong.some((id) => w.startsWith(`${id}:`)))).toEqual([])
      expect(passed).toBeGreaterThanOrEqual(ratchet.tuning.passed)
    },
    60_000,
  )
})

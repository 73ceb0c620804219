/**
 * Every code of the reference-write error catalog is reached from outside: each appears as an asserted code
 * in an e2e test that produces it against a real server process (storage faults included).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot } from './harness.js'

const catalog = readFileSync(join(repoRoot, 'core', 'src', 'ref', 'codes.ts'), 'utf8')
const codes = [...new Set([...catalog.matchAll(/'((?:INVALID_)?REF_[A-Z_]+)'/g)].map((m) => m[1] as string))]
const e2eDir = join(repoRoot, 'e2e', 'src')
const tests = readdirSync(e2eDir)
  .filter((name) => name.endsWith('.test.ts') && name !== 'ref-codes.test.ts')
  .map((name) => readFileSync(join(e2eDir, name), 'utf8'))
  .join('\n')

describe('the reference-write error catalog', () => {
  it('has every code asserted by an e2e test', () => {
    expect(codes.length).toBeGreaterThanOrEqual(20)
    expect(codes.filter((code) => !tests.includes(`'${code}'`))).toEqual([])
  })
})

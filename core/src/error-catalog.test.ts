import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ERROR_CATALOG } from './error-catalog.js'
import { EngineError } from './errors.js'

const sharedDir = process.env.SHARED_DIR ?? join(import.meta.dirname, '../../../shared')

describe('error catalog', () => {
  it('gives every error the category its code has in the catalog', () => {
    expect(new EngineError('NOT_FOUND', 'x').category).toBe('not_found')
    expect(new EngineError('REF_PRIMARY_WRITE_TIMEOUT', 'x').category).toBe('timeout')
    expect(new EngineError('OVERBROAD_OBJECTIVE', 'x').category).toBe('unprocessable')
  })

  it("spells the memory contract's codes as the spec does", (ctx) => {
    let spec: string
    try {
      spec = readFileSync(join(sharedDir, 'spec/interface-spec.md'), 'utf8')
    } catch {
      ctx.skip(`no spec under ${sharedDir} (set SHARED_DIR)`)
      return
    }
    const line = /Memory codes \(v1\): ([A-Z_, ]+)\./.exec(spec)
    expect(line, 'the spec lists the memory codes').not.toBeNull()
    const codes = line![1]!.split(',').map((code) => code.trim())
    expect(codes.length).toBeGreaterThan(10)
    expect(codes.filter((code) => !Object.hasOwn(ERROR_CATALOG, code))).toEqual([])
  })
})

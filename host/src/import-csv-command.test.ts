import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { importCsvCommand, inputGroup } from './import-csv-command.js'

describe('import-csv arguments', () => {
  it("reads neo4j-admin's group syntax: labels or a type before '=', comma-separated files", () => {
    expect(inputGroup('Person:Admin=h.csv,p1.csv', 'nodes')).toEqual({
      files: [resolve('h.csv'), resolve('p1.csv')],
      labels: ['Person', 'Admin'],
    })
    expect(inputGroup('KNOWS=k.csv.gz', 'relationships')).toEqual({
      files: [resolve('k.csv.gz')],
      type: 'KNOWS',
    })
    expect(inputGroup('plain.csv', 'nodes')).toEqual({ files: [resolve('plain.csv')] })
  })

  it('reads a file whose name holds "=" as a file when it exists', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-csv-args-'))
    const odd = join(dir, 'a=b.csv')
    writeFileSync(odd, 'id:ID\n')
    try {
      expect(inputGroup(odd, 'nodes')).toEqual({ files: [odd] })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses bad options with exit code 2 before reading anything', async () => {
    const base = { nodes: ['n.csv'], relationships: [], storageDir: join(tmpdir(), 'never-created') }
    expect(await importCsvCommand({ ...base, storageDir: undefined })).toBe(2)
    expect(await importCsvCommand({ ...base, delimiter: ';;' })).toBe(2)
    expect(await importCsvCommand({ ...base, delimiter: ';' })).toBe(2) // same as the array delimiter
    expect(await importCsvCommand({ ...base, badTolerance: '-1' })).toBe(2)
    expect(await importCsvCommand({ ...base, idType: 'uuid' })).toBe(2)
  })
})

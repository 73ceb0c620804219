import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { EngineError } from '../errors.js'
import { DEFAULT_CSV_FORMAT } from './csv-source.js'
import { GroupReader } from './csv-thread.js'
import { PackedRow } from './packed-rows.js'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

function files() {
  const root = mkdtempSync(join(tmpdir(), 'csv-thread-'))
  roots.push(root)
  const file = (name: string, text: string) => {
    const path = join(root, name)
    writeFileSync(path, text)
    return path
  }
  let big = 'id:ID,n:int\n'
  for (let i = 0; i < 20_000; i++) big += `${i},${i * 2}\n`
  return {
    big: file('big.csv', big),
    quoted: file('quoted.csv', 'a,"multi\nline ""quoted""",c\n\nlast,,\n'),
    broken: file('broken.csv', 'x,"never closed\n'),
  }
}

/** Every group's records as (file, record number, fields), read through `reader`. */
async function readAll(reader: GroupReader, groups: number) {
  const out: [string, number, string[]][][] = []
  const row = new PackedRow()
  try {
    for (let g = 0; g < groups; g++) {
      const records: [string, number, string[]][] = []
      for await (const batch of reader.group()) {
        for (let i = 0; i < batch.rows.rowEnds.length; i++) {
          row.at(batch.rows, i)
          records.push([batch.file, batch.firstRow + i, row.fields()])
        }
      }
      out.push(records)
    }
  } finally {
    await reader.close()
  }
  return out
}

describe('the import group reader', () => {
  it('reads the same records in the same order on its thread as on this one', async () => {
    const f = files()
    const groups = [[f.big], [f.quoted, f.big]]
    const threaded = await readAll(new GroupReader(groups, DEFAULT_CSV_FORMAT, true), 2)
    const here = await readAll(new GroupReader(groups, DEFAULT_CSV_FORMAT, false), 2)
    expect(threaded.map((g) => g.length)).toEqual(here.map((g) => g.length))
    expect(threaded).toEqual(here)
    expect(threaded[0]!.length).toBe(20_001)
    expect(threaded[1]![0]).toEqual([f.quoted, 1, ['a', 'multi\nline "quoted"', 'c']])
    // the empty line is skipped, the next record numbered on
    expect(threaded[1]![1]).toEqual([f.quoted, 2, ['last', '', '']])
    expect(threaded[1]![2]).toEqual([f.big, 1, ['id:ID', 'n:int']])
    expect(threaded[1]![20_002]).toEqual([f.big, 20_001, ['19999', '39998']])
  })

  it.each([true, false])(
    'gives a parse failure as an input error after the groups before it (thread: %s)',
    async (thread) => {
      const f = files()
      const reader = new GroupReader([[f.big], [f.broken]], DEFAULT_CSV_FORMAT, thread)
      const rows: number[] = []
      const failure = await (async () => {
        try {
          for (let g = 0; g < 2; g++) {
            let n = 0
            for await (const batch of reader.group()) n += batch.rows.rowEnds.length
            rows.push(n)
          }
        } catch (error) {
          return error
        } finally {
          await reader.close()
        }
      })()
      expect(rows).toEqual([20_001])
      expect(failure).toBeInstanceOf(EngineError)
      expect((failure as EngineError).code).toBe('IMPORT_INPUT_INVALID')
      expect((failure as Error).message).toContain(f.broken)
    },
  )

  // A host started with --input-type=module passes the flag on to its threads: the thread's code is read as
  // a module there, where `require` does not exist.
  const built = fileURLToPath(new URL('../../dist/import/csv-thread.js', import.meta.url))
  it.runIf(existsSync(built))('parses on its thread in a host started with --input-type=module', () => {
    const f = files()
    const code = `const { GroupReader } = await import(${JSON.stringify(pathToFileURL(built).href)})
const reader = new GroupReader([[${JSON.stringify(f.big)}]], { delimiter: ',', quote: '"', arrayDelimiter: ';' })
let rows = 0
for await (const batch of reader.group()) rows += batch.rows.rowEnds.length
await reader.close()
console.log(rows)`
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' })
    expect(out.trim()).toBe('20001')
  })
})

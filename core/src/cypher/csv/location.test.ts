import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveCsvLocation } from './location.js'

function importDir() {
  const root = mkdtempSync(join(tmpdir(), 'csv-location-'))
  const dir = join(root, 'import')
  mkdirSync(join(dir, 'sub'), { recursive: true })
  writeFileSync(join(dir, 'people.csv'), 'a\n')
  writeFileSync(join(dir, 'sub', 'my file.csv'), 'a\n')
  writeFileSync(join(root, 'secret.csv'), 'x\n')
  symlinkSync(join(root, 'secret.csv'), join(dir, 'out.csv'))
  symlinkSync(join(dir, 'people.csv'), join(dir, 'in.csv'))
  return { root, dir }
}

const refusal = async (text: string, policy: Parameters<typeof resolveCsvLocation>[1]) => {
  const error = await resolveCsvLocation(text, policy).then(
    () => undefined,
    (e: unknown) => e as { code: string; message: string },
  )
  return error && { code: error.code, message: error.message }
}

describe('LOAD CSV file locations', () => {
  it('resolves file:/// URLs inside the import directory, as Neo4j does with its import dir', async () => {
    const { dir } = importDir()
    const people = await resolveCsvLocation('file:///people.csv', { importDir: dir })
    expect(people).toMatchObject({ kind: 'file', url: 'file:///people.csv' })
    expect(people.kind === 'file' && people.path.endsWith('people.csv')).toBe(true)
    const spaced = await resolveCsvLocation('file:///sub/my%20file.csv', { importDir: dir })
    expect(spaced.kind === 'file' && spaced.path.endsWith(join('sub', 'my file.csv'))).toBe(true)
    // A symlink that stays inside is a file of the directory.
    expect((await resolveCsvLocation('file:///in.csv', { importDir: dir })).kind).toBe('file')
  })

  it('refuses without an import directory, naming the setting', async () => {
    const error = await refusal('file:///people.csv', {})
    expect(error?.code).toBe('LOAD_CSV_NOT_ALLOWED')
    expect(error?.message).toContain('SERVICE_CYPHER_IMPORT_DIR')
  })

  it("refuses '..' and symlinks that lead out of the directory", async () => {
    const { dir } = importDir()
    expect(await refusal('file:///../secret.csv', { importDir: dir })).toMatchObject({
      code: 'LOAD_CSV_NOT_ALLOWED',
      message: expect.stringContaining("'..'"),
    })
    expect((await refusal('file:///sub/%2e%2e/%2e%2e/secret.csv', { importDir: dir }))?.code).toBe(
      'LOAD_CSV_NOT_ALLOWED',
    )
    expect(await refusal('file:///out.csv', { importDir: dir })).toMatchObject({
      code: 'LOAD_CSV_NOT_ALLOWED',
      message: expect.stringContaining('symbolic link'),
    })
  })

  it('reports a missing file and a foreign host or scheme', async () => {
    const { dir } = importDir()
    expect((await refusal('file:///nope.csv', { importDir: dir }))?.code).toBe('EXTERNAL_RESOURCE_FAILED')
    expect((await refusal('file://other-host/people.csv', { importDir: dir }))?.code).toBe(
      'LOAD_CSV_NOT_ALLOWED',
    )
    expect((await refusal('ftp://example.org/a.csv', { importDir: dir }))?.code).toBe('LOAD_CSV_NOT_ALLOWED')
    expect((await refusal('people.csv', { importDir: dir }))?.code).toBe('LOAD_CSV_NOT_ALLOWED')
  })
})

describe('LOAD CSV remote locations', () => {
  const allowedUrls = ['https://data.example.org/exports/', 'http://127.0.0.1:8080']

  it('admits URLs under a listed prefix', async () => {
    const inside = await resolveCsvLocation('https://data.example.org/exports/a.csv', { allowedUrls })
    expect(inside.kind === 'remote' && inside.url.href).toBe('https://data.example.org/exports/a.csv')
    expect((await resolveCsvLocation('http://127.0.0.1:8080/x/y.csv', { allowedUrls })).kind).toBe('remote')
  })

  it('refuses every other address, however it is spelled', async () => {
    for (const url of [
      'https://data.example.org/other/a.csv',
      'https://data.example.org/exports/../other/a.csv',
      'https://data.example.org.evil.net/exports/a.csv',
      'https://user@data.example.org/exports/a.csv',
      'http://data.example.org/exports/a.csv',
      'http://127.0.0.1:8081/a.csv',
      'http://localhost:8080/a.csv',
    ]) {
      const error = await refusal(url, { allowedUrls })
      expect(error?.code, url).toBe('LOAD_CSV_NOT_ALLOWED')
      expect(error?.message).toContain('SERVICE_CYPHER_IMPORT_ALLOWED_URLS')
    }
    expect((await refusal('https://data.example.org/exports/a.csv', {}))?.code).toBe('LOAD_CSV_NOT_ALLOWED')
  })
})

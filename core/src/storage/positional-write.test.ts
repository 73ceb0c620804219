import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'

// Every pwrite the module makes goes through this: the first call of a test may be cut short on purpose.
let cutFirstAt: number | null = null
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>()
  const writeSync = (fd: number, data: string | Buffer, ...rest: unknown[]): number => {
    if (cutFirstAt !== null) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
      const offset = typeof data === 'string' ? 0 : (rest[0] as number)
      const position = (typeof data === 'string' ? rest[0] : rest[2]) as number
      const cut = cutFirstAt
      cutFirstAt = null
      return actual.writeSync(fd, bytes, offset, cut, position)
    }
    return (actual.writeSync as (...args: unknown[]) => number)(fd, data, ...rest)
  }
  return { ...actual, writeSync }
})

const { writeAllAt } = await import('./positional-write.js')

const file = () => {
  const path = join(fs.mkdtempSync(join(tmpdir(), 'pwrite-')), 'f')
  return { path, fd: fs.openSync(path, 'w+') }
}

afterEach(() => {
  cutFirstAt = null
})

describe('writeAllAt', () => {
  const text = 'é{"a":"ü€𝄞"}\n'.repeat(3) // 2-, 3- and 4-byte characters

  it('writes text at its position and returns its UTF-8 length', () => {
    const { path, fd } = file()
    writeAllAt(fd, 'xxxx', 0)
    expect(writeAllAt(fd, text, 4)).toBe(Buffer.byteLength(text))
    fs.closeSync(fd)
    expect(fs.readFileSync(path, 'utf8')).toBe(`xxxx${text}`)
  })

  it('resumes a short write of text from the byte where it stopped (even inside a character)', () => {
    const { path, fd } = file()
    cutFirstAt = 1 // between the two bytes of 'é'
    expect(writeAllAt(fd, text, 0)).toBe(Buffer.byteLength(text))
    cutFirstAt = 9 // between the two bytes of 'ü'
    writeAllAt(fd, text, Buffer.byteLength(text))
    fs.closeSync(fd)
    expect(fs.readFileSync(path, 'utf8')).toBe(text + text)
  })

  it('resumes a short write of a buffer', () => {
    const { path, fd } = file()
    cutFirstAt = 3
    expect(writeAllAt(fd, Buffer.from(text), 0)).toBe(Buffer.byteLength(text))
    fs.closeSync(fd)
    expect(fs.readFileSync(path, 'utf8')).toBe(text)
  })
})

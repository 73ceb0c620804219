import { mkdir, open, readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'

export class CursorStoreError extends Error {
  override readonly name = 'CursorStoreError'
}

/**
 * Per-collection cursors in `<dir>/cursors.json` as `{"cursors":{"<collection>":"<timestamp>"}}`. A save is
 * write-temp, fsync, rename, fsync-directory, so a crash leaves the old file or the new one, never a torn one.
 * Saves re-read the file and change only their own key, so connectors for other collections may share it.
 */
export class CursorStore {
  readonly file: string

  constructor(readonly dir: string) {
    this.file = join(dir, 'cursors.json')
  }

  async load(): Promise<Record<string, string>> {
    let text: string
    try {
      text = await readFile(this.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw new CursorStoreError(`cannot read ${this.file}: ${(error as NodeJS.ErrnoException).code}`)
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new CursorStoreError(
        `${this.file} is not JSON; fix or remove it (removing re-imports everything)`,
      )
    }
    const cursors = (parsed as { cursors?: unknown } | null)?.cursors
    if (typeof cursors !== 'object' || cursors === null || Array.isArray(cursors)) {
      throw new CursorStoreError(`${this.file} has no "cursors" object`)
    }
    const out: Record<string, string> = {}
    for (const [collection, value] of Object.entries(cursors)) {
      if (typeof value !== 'string')
        throw new CursorStoreError(`${this.file}: cursor of ${collection} is not a string`)
      out[collection] = value
    }
    return out
  }

  async get(collection: string): Promise<string | undefined> {
    return (await this.load())[collection]
  }

  async save(collection: string, cursor: string): Promise<void> {
    const cursors = { ...(await this.load()), [collection]: cursor }
    await mkdir(this.dir, { recursive: true })
    const temp = `${this.file}.${process.pid}.tmp`
    const handle = await open(temp, 'w', 0o600)
    try {
      await handle.writeFile(`${JSON.stringify({ cursors }, null, 2)}\n`)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, this.file)
    const dir = await open(this.dir, 'r')
    try {
      await dir.sync()
    } finally {
      await dir.close()
    }
  }
}

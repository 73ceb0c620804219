import { createHash } from 'node:crypto'
import { STORAGE_VERSION } from '../../version.js'
import type { BackupSource } from './backup-source.js'
import { padding, TAR_END, tarHeader } from './tar.js'

/** The last entry of every backup archive: what it holds, at which sequence, each file's SHA-256. */
export const BACKUP_MANIFEST = 'backup-manifest.json'
export const BACKUP_FORMAT = 'service-backup/1'

export interface BackupManifest {
  format: typeof BACKUP_FORMAT
  backend: 'file' | 'postgres'
  sequence: number
  graph_id: string
  storage_version: string
  created_at: string
  files: { name: string; bytes: number; sha256: string }[]
}

/**
 * The archive bytes of a backup: a ustar stream of the source's files in order, then `backup-manifest.json`
 * (last, because the digests are computed as the files stream). Pulled one chunk at a time, so memory stays
 * bounded by the read size whatever the store's size; the source is released when the stream ends or is
 * abandoned.
 */
export async function* backupArchive(source: BackupSource, now: () => number): AsyncGenerator<Buffer> {
  try {
    const files: BackupManifest['files'] = []
    const createdAt = now()
    for (const file of source.files) {
      yield tarHeader(file.name, file.size, createdAt)
      const hash = createHash('sha256')
      let bytes = 0
      for await (const chunk of file.read()) {
        hash.update(chunk)
        bytes += chunk.length
        yield chunk
      }
      if (bytes !== file.size) throw new Error(`${file.name} read ${bytes} bytes, expected ${file.size}`)
      yield padding(bytes)
      files.push({ name: file.name, bytes, sha256: hash.digest('hex') })
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      backend: source.backend,
      sequence: source.sequence,
      graph_id: source.graphId,
      storage_version: STORAGE_VERSION,
      created_at: new Date(createdAt).toISOString(),
      files,
    }
    const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
    yield tarHeader(BACKUP_MANIFEST, text.length, createdAt)
    yield text
    yield padding(text.length)
    yield TAR_END
  } finally {
    source.release()
  }
}

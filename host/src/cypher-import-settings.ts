import type { EnvReader } from './env-reader.js'

/** Where Cypher's LOAD CSV may read (core/src/cypher/csv/location.ts enforces it). */
export interface CypherImportSettings {
  /** SERVICE_CYPHER_IMPORT_DIR, absolute: `file:///x.csv` is `x.csv` in it; null refuses every file URL. */
  importDir: string | null
  /** SERVICE_CYPHER_IMPORT_ALLOWED_URLS: http(s) prefixes LOAD CSV may fetch; empty refuses every URL. */
  allowedUrls: string[]
}

/** SERVICE_CYPHER_IMPORT_* settings; problems join the others in the reader. */
export function readCypherImportSettings(r: EnvReader, abs: (path: string) => string): CypherImportSettings {
  const dir = r.string('SERVICE_CYPHER_IMPORT_DIR')
  const allowedUrls = (r.string('SERVICE_CYPHER_IMPORT_ALLOWED_URLS') ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  for (const prefix of allowedUrls) {
    let url: URL | undefined
    try {
      url = new URL(prefix)
    } catch {
      url = undefined
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      r.problem(`SERVICE_CYPHER_IMPORT_ALLOWED_URLS entry '${prefix}' must be an http(s) URL prefix`)
  }
  return { importDir: dir === undefined || dir.trim() === '' ? null : abs(dir.trim()), allowedUrls }
}

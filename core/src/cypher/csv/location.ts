import { realpath } from 'node:fs/promises'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { CypherError } from '../errors.js'

/** Where LOAD CSV may read from: files under one directory, remote URLs under listed prefixes. */
export interface CsvImportPolicy {
  /** SERVICE_CYPHER_IMPORT_DIR: `file:///x.csv` is `x.csv` in it; unset, no file can be read. */
  importDir?: string | undefined
  /** SERVICE_CYPHER_IMPORT_ALLOWED_URLS: http(s) URL prefixes LOAD CSV may fetch; none by default. */
  allowedUrls?: readonly string[] | undefined
}

/** A resolved LOAD CSV source: a real path inside the import directory, or an allowed remote URL. */
export type CsvLocation = { kind: 'file'; path: string; url: string } | { kind: 'remote'; url: URL }

/** LOAD CSV may not read this (outside the directory, no directory, a URL not listed): Neo4j's refusal. */
export const importRefused = (message: string): CypherError =>
  new CypherError('LOAD_CSV_NOT_ALLOWED', message, 'runtime')

/** The source could not be read (missing, unreadable, malformed): Neo4j's ExternalResourceFailed. */
export const resourceFailed = (message: string): CypherError =>
  new CypherError('EXTERNAL_RESOURCE_FAILED', message, 'runtime')

/**
 * Checks `text` against the policy before anything is opened: a file URL must stay inside the import
 * directory once symlinks are resolved, a remote URL must start with an allowed prefix (same origin, path
 * under the prefix's), so no request ever goes to an address the operator did not list.
 */
export async function resolveCsvLocation(text: string, policy: CsvImportPolicy): Promise<CsvLocation> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase()
  if (scheme === 'file') return { kind: 'file', path: await resolveFile(text, policy.importDir), url: text }
  if (scheme === 'http' || scheme === 'https') return { kind: 'remote', url: allowedRemote(text, policy) }
  throw importRefused(
    `LOAD CSV reads file:/// URLs (under SERVICE_CYPHER_IMPORT_DIR) or allowed http(s) URLs, not '${text}'`,
  )
}

async function resolveFile(text: string, importDir: string | undefined): Promise<string> {
  if (importDir === undefined || importDir === '')
    throw importRefused(
      `LOAD CSV from file URLs is disabled: set SERVICE_CYPHER_IMPORT_DIR to allow '${text}'`,
    )
  // `file:///a.csv` and `file:/a.csv`; a host other than localhost names another machine.
  const match = /^file:(?:\/\/([^/]*))?(\/.*)?$/i.exec(text)
  const host = match?.[1]
  if (match === null || (host !== undefined && host !== '' && host.toLowerCase() !== 'localhost'))
    throw importRefused(`'${text}' is not a local file URL (file:///name.csv)`)
  let path: string
  try {
    path = decodeURIComponent((match[2] ?? '/').replace(/[?#].*$/, ''))
  } catch {
    throw importRefused(`'${text}' is not a valid file URL`)
  }
  // Refused outright rather than normalised away: a query that climbs out is a mistake or an attack.
  if (path.split(/[\\/]/).includes('..'))
    throw importRefused(`'${text}' climbs out of the import directory with '..'`)
  if (path.includes('\0')) throw importRefused(`'${text}' is not a valid file URL`)
  let root: string
  try {
    root = await realpath(importDir)
  } catch {
    throw resourceFailed(`the import directory SERVICE_CYPHER_IMPORT_DIR (${importDir}) cannot be read`)
  }
  let real: string
  try {
    real = await realpath(resolve(root, `.${path}`))
  } catch {
    throw resourceFailed(
      `cannot load the external resource at '${text}': no such file in the import directory`,
    )
  }
  const inside = relative(root, real)
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside))
    throw importRefused(`'${text}' resolves (through a symbolic link) outside the import directory`)
  return real
}

function allowedRemote(text: string, policy: CsvImportPolicy): URL {
  const url = parseUrl(text)
  if (url === undefined) throw importRefused(`'${text}' is not a valid URL`)
  const allowed = (policy.allowedUrls ?? []).some((prefix) => underPrefix(url, prefix))
  if (!allowed)
    throw importRefused(
      `LOAD CSV may not fetch '${url.href}': its prefix is not listed in SERVICE_CYPHER_IMPORT_ALLOWED_URLS`,
    )
  return url
}

/** Same scheme, host and port, and a path under the prefix's: `https://a.org` never admits `https://a.org.evil`. */
function underPrefix(url: URL, prefix: string): boolean {
  const base = parseUrl(prefix)
  if (base === undefined) return false
  if (url.origin !== base.origin || url.username !== '' || url.password !== '') return false
  const path = base.pathname
  if (path === '/' || url.pathname === path) return true
  return url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`)
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

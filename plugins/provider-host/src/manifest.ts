import { type Domain, isDomain } from './domains.js'
import {
  type Capability,
  expectArray,
  expectBoolean,
  expectCapabilities,
  expectObject,
  expectString,
  parseJson,
} from './strict-json.js'

/** One provider in the manifest: where its library is (under the trusted root), its digest and policy. */
export interface ManifestEntry {
  domain: Domain
  /** Relative path of plain components (no absolute path, no `..`, no `.` or empty component). */
  library: string
  /** Lowercase hex SHA-256 of the library file. */
  sha256: string
  /** A required provider that fails stops start-up; an optional one whose file is missing is skipped. */
  required: boolean
  /** Capabilities the provider's metadata must declare. */
  capabilities: Capability[]
}

export interface ProviderManifest {
  schema_version: '1'
  providers: ManifestEntry[]
}

const SHA256_HEX = /^[0-9a-f]{64}$/

/** Why `library` is not a confined relative path, or null when it is. */
export function libraryPathFault(library: string): string | null {
  if (library === '') return 'is empty'
  if (library.includes('\0')) return 'contains a NUL byte'
  if (library.includes('\\')) return 'contains a backslash (use / between components)'
  if (library.startsWith('/') || /^[A-Za-z]:/.test(library)) return 'is absolute'
  for (const component of library.split('/')) {
    if (component === '') return 'has an empty component'
    if (component === '.' || component === '..') return `has a '${component}' component`
  }
  return null
}

/**
 * Parses the provider manifest strictly: unknown fields anywhere, a schema version other than "1", a
 * repeated domain, an unconfined path or a malformed digest are all faults (thrown as TypeError).
 */
export function parseManifest(text: string): ProviderManifest {
  const root = expectObject(parseJson(text, 'the manifest'), 'the manifest', ['schema_version', 'providers'])
  if (root.schema_version !== '1')
    throw new TypeError(`manifest schema_version must be "1" (got ${JSON.stringify(root.schema_version)})`)
  const seen = new Set<Domain>()
  const providers = expectArray(root.providers, 'providers').map((item, i): ManifestEntry => {
    const where = `providers[${i}]`
    const e = expectObject(item, where, ['domain', 'library', 'sha256', 'required', 'capabilities'])
    const domain = expectString(e.domain, `${where}.domain`)
    if (!isDomain(domain))
      throw new TypeError(`${where}.domain '${domain}' is not one of cti, fimi, crisis, medical, research`)
    if (seen.has(domain)) throw new TypeError(`${where}: domain ${domain} is listed more than once`)
    seen.add(domain)
    const library = expectString(e.library, `${where}.library`)
    const fault = libraryPathFault(library)
    if (fault !== null)
      throw new TypeError(
        `${where}.library ${fault}; it must be a relative path under the provider directory`,
      )
    const sha256 = expectString(e.sha256, `${where}.sha256`)
    if (!SHA256_HEX.test(sha256)) throw new TypeError(`${where}.sha256 must be 64 lowercase hex characters`)
    return {
      domain,
      library,
      sha256,
      required: expectBoolean(e.required, `${where}.required`),
      capabilities: expectCapabilities(e.capabilities, `${where}.capabilities`),
    }
  })
  return { schema_version: '1', providers }
}

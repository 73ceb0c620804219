import { createHash } from 'node:crypto'
import { readFile, realpath, stat } from 'node:fs/promises'
import { isAbsolute, join, relative, sep } from 'node:path'
import type { Domain } from './domains.js'
import { ProviderStartupError } from './errors.js'
import { type ManifestEntry, parseManifest } from './manifest.js'
import { type NativeLibrary, openNativeLibrary, type ProviderHandle } from './native-library.js'
import {
  createConfig,
  HEALTH_REPLY_LIMIT,
  METADATA_REPLY_LIMIT,
  type ProviderMetadata,
  parseHealth,
  parseMetadata,
} from './protocol.js'
import { DomainProvider, type ProviderBackend } from './provider.js'
import { createRegistry, type ProviderRegistry } from './registry.js'

/** Provider ABI v1: the major must match, the minor may be newer than the host's. */
export const ABI_MAJOR = 1
export const ABI_MINOR = 1

/** One manifest and its trusted directory, and who supplies it. */
export interface ProviderSourceOptions {
  /** The trusted root directory of provider libraries. */
  dir: string
  manifestFile: string
  /** Who supplies this manifest (e.g. `pack @acme/service-pack-research`); prefixes its start-up errors. */
  origin?: string
  /** The one domain this manifest may provide (a pack's own manifest provides its pack's domain only). */
  domain?: Domain
}

export type ProviderLog = (event: { event: string; domain?: Domain; message: string }) => void

export interface LoadProvidersOptions extends ProviderSourceOptions {
  /** Where start-up notes go (skipped optional providers, loaded providers); never secrets. */
  log?: ProviderLog
}

const errnoCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code

/** Loads the providers of one manifest (SERVICE_DOMAIN_PROVIDER_DIR + SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE). */
export function loadProviders(options: LoadProvidersOptions): Promise<ProviderRegistry> {
  return loadProviderSources([options], options.log)
}

const withOrigin = (source: ProviderSourceOptions, message: string) =>
  source.origin === undefined ? message : `${source.origin}: ${message}`

async function readSource(
  source: ProviderSourceOptions,
): Promise<{ root: string; entries: ManifestEntry[] }> {
  const fault = (message: string) => new ProviderStartupError(withOrigin(source, message))
  let text: string
  try {
    text = await readFile(source.manifestFile, 'utf8')
  } catch (error) {
    throw fault(
      `cannot read the provider manifest ${source.manifestFile} (${errnoCode(error) ?? 'unreadable'})`,
    )
  }
  let entries: ManifestEntry[]
  try {
    entries = parseManifest(text).providers
  } catch (error) {
    throw fault(`invalid provider manifest ${source.manifestFile}: ${(error as Error).message}`)
  }
  if (source.domain !== undefined && (entries.length !== 1 || entries[0]?.domain !== source.domain))
    throw fault(
      `its provider manifest ${source.manifestFile} must list exactly the ${source.domain} provider (it lists ${entries.map((e) => e.domain).join(', ') || 'none'})`,
    )
  let root: string
  try {
    root = await realpath(source.dir)
    if (!(await stat(root)).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' })
  } catch (error) {
    throw fault(
      `the provider directory ${source.dir} cannot be used (${errnoCode(error) ?? 'not a directory'})`,
    )
  }
  return { root, entries }
}

/**
 * Loads every entry of every manifest in order: canonical path confined to the canonical root, digest
 * checked before the library is opened, ABI v1 negotiated, metadata validated, one instance created and
 * healthy. Only an optional entry whose file is missing is skipped; any other fault of any entry, or a
 * domain supplied twice, stops start-up with a ProviderStartupError naming the source, the domain and the
 * reason, after releasing what was already loaded.
 */
export async function loadProviderSources(
  sources: readonly ProviderSourceOptions[],
  log: ProviderLog = () => undefined,
): Promise<ProviderRegistry> {
  const loaded: DomainProvider[] = []
  const suppliedBy = new Map<Domain, string>()
  const required = new Set<Domain>()
  let configured = 0
  try {
    for (const source of sources) {
      const { root, entries } = await readSource(source)
      const name = source.origin ?? source.manifestFile
      for (const entry of entries) {
        const prior = suppliedBy.get(entry.domain)
        if (prior !== undefined)
          throw new ProviderStartupError(
            `${name} and ${prior} both supply a ${entry.domain} provider; one provider per domain`,
          )
        suppliedBy.set(entry.domain, name)
        if (entry.required) required.add(entry.domain)
      }
      configured += entries.length
      for (const entry of entries) {
        const path = await confinedLibraryPath(root, entry, source)
        if (path === null) {
          log({
            event: 'domain_provider_skipped',
            domain: entry.domain,
            message: `optional ${entry.domain} provider library ${entry.library} is absent; skipped`,
          })
          continue
        }
        const provider = await loadOne(path, entry, source)
        loaded.push(provider)
        log({
          event: 'domain_provider_loaded',
          domain: entry.domain,
          message: withOrigin(
            source,
            `${entry.domain} provider ${provider.metadata.provider_id} ${provider.metadata.provider_version} loaded`,
          ),
        })
      }
    }
  } catch (error) {
    await Promise.allSettled(loaded.map((p) => p.close()))
    throw error
  }
  return createRegistry(loaded, { configured, required })
}

const startupError = (entry: ManifestEntry, source: ProviderSourceOptions, reason: string, cause?: unknown) =>
  new ProviderStartupError(
    withOrigin(
      source,
      `${entry.required ? 'required' : 'optional'} ${entry.domain} domain provider (${entry.library}): ${reason}`,
    ),
    cause === undefined ? undefined : { cause },
  )

/** The canonical library path, or null for an optional entry whose file is missing. */
async function confinedLibraryPath(
  root: string,
  entry: ManifestEntry,
  source: ProviderSourceOptions,
): Promise<string | null> {
  let real: string
  try {
    real = await realpath(join(root, entry.library))
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      if (!entry.required) return null
      throw startupError(entry, source, 'the library file does not exist under the provider directory')
    }
    throw startupError(entry, source, `the library path cannot be resolved (${errnoCode(error) ?? 'error'})`)
  }
  // Symlinks are followed first, so a link pointing outside the root is caught here.
  const rel = relative(root, real)
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw startupError(entry, source, 'the library resolves outside the provider directory')
  if (!(await stat(real)).isFile())
    throw startupError(entry, source, 'the library path is not a regular file')
  return real
}

async function loadOne(
  path: string,
  entry: ManifestEntry,
  source: ProviderSourceOptions,
): Promise<DomainProvider> {
  // The digest is checked on the bytes before anything is loaded, so a tampered file never runs.
  const digest = createHash('sha256')
    .update(await readFile(path))
    .digest('hex')
  if (digest !== entry.sha256)
    throw startupError(entry, source, `SHA-256 digest mismatch (manifest ${entry.sha256}, file ${digest})`)

  let library: NativeLibrary
  try {
    library = await openNativeLibrary(path)
  } catch (error) {
    throw startupError(entry, source, `the library cannot be loaded: ${(error as Error).message}`, error)
  }
  let handle: ProviderHandle | null = null
  try {
    const metadata = negotiate(library, entry, source)
    try {
      handle = library.create(createConfig(entry.domain))
    } catch (error) {
      throw startupError(entry, source, `create failed: ${(error as Error).message}`, error)
    }
    if (handle === null) throw startupError(entry, source, 'create returned no instance')
    try {
      parseHealth(library.health(handle, HEALTH_REPLY_LIMIT).toString('utf8'))
    } catch (error) {
      throw startupError(entry, source, `the instance is not healthy: ${(error as Error).message}`, error)
    }
    return new DomainProvider(nativeBackend(library, handle, metadata))
  } catch (error) {
    if (handle !== null) library.destroy(handle)
    library.close()
    throw error
  }
}

function negotiate(
  library: NativeLibrary,
  entry: ManifestEntry,
  source: ProviderSourceOptions,
): ProviderMetadata {
  let version: number
  try {
    version = library.abiVersion()
  } catch (error) {
    throw startupError(
      entry,
      source,
      `not a provider interface v1 library: ${(error as Error).message}`,
      error,
    )
  }
  const major = version >>> 16
  const minor = version & 0xffff
  if (major !== ABI_MAJOR || minor < ABI_MINOR)
    throw startupError(
      entry,
      source,
      `provider interface version ${major}.${minor} is not supported (the host needs ${ABI_MAJOR}.${ABI_MINOR} or a later ${ABI_MAJOR}.x)`,
    )
  try {
    return parseMetadata(
      library.metadata(METADATA_REPLY_LIMIT).toString('utf8'),
      entry.domain,
      entry.capabilities,
    )
  } catch (error) {
    throw startupError(entry, source, `invalid metadata: ${(error as Error).message}`, error)
  }
}

function nativeBackend(
  library: NativeLibrary,
  handle: ProviderHandle,
  metadata: ProviderMetadata,
): ProviderBackend {
  let destroyed = false
  return {
    metadata,
    invoke: (request) => library.invoke(handle, request, metadata.max_response_bytes),
    destroy() {
      if (destroyed) return
      destroyed = true
      library.destroy(handle)
      library.close()
    },
  }
}

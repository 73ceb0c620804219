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

export interface LoadProvidersOptions {
  /** The trusted root directory of provider libraries. */
  dir: string
  manifestFile: string
  /** Where start-up notes go (skipped optional providers, loaded providers); never secrets. */
  log?: (event: { event: string; domain?: Domain; message: string }) => void
}

const errnoCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code

/**
 * Loads every manifest entry in order: canonical path confined to the canonical root, digest checked
 * before the library is opened, ABI v1 negotiated, metadata validated, one instance created and healthy.
 * Only an optional entry whose file is missing is skipped; any other fault of any entry stops start-up
 * with a ProviderStartupError naming the domain and the reason, after releasing what was already loaded.
 */
export async function loadProviders(options: LoadProvidersOptions): Promise<ProviderRegistry> {
  const log = options.log ?? (() => undefined)
  let text: string
  try {
    text = await readFile(options.manifestFile, 'utf8')
  } catch (error) {
    throw new ProviderStartupError(
      `cannot read the provider manifest ${options.manifestFile} (${errnoCode(error) ?? 'unreadable'})`,
    )
  }
  let entries: ManifestEntry[]
  try {
    entries = parseManifest(text).providers
  } catch (error) {
    throw new ProviderStartupError(
      `invalid provider manifest ${options.manifestFile}: ${(error as Error).message}`,
    )
  }
  let root: string
  try {
    root = await realpath(options.dir)
    if (!(await stat(root)).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' })
  } catch (error) {
    throw new ProviderStartupError(
      `the provider directory ${options.dir} cannot be used (${errnoCode(error) ?? 'not a directory'})`,
    )
  }

  const loaded: DomainProvider[] = []
  try {
    for (const entry of entries) {
      const path = await confinedLibraryPath(root, entry)
      if (path === null) {
        log({
          event: 'domain_provider_skipped',
          domain: entry.domain,
          message: `optional ${entry.domain} provider library ${entry.library} is absent; skipped`,
        })
        continue
      }
      const provider = await loadOne(path, entry)
      loaded.push(provider)
      log({
        event: 'domain_provider_loaded',
        domain: entry.domain,
        message: `${entry.domain} provider ${provider.metadata.provider_id} ${provider.metadata.provider_version} loaded`,
      })
    }
  } catch (error) {
    await Promise.allSettled(loaded.map((p) => p.close()))
    throw error
  }
  return createRegistry(loaded, {
    configured: entries.length,
    required: new Set(entries.filter((e) => e.required).map((e) => e.domain)),
  })
}

const startupError = (entry: ManifestEntry, reason: string, cause?: unknown) =>
  new ProviderStartupError(
    `${entry.required ? 'required' : 'optional'} ${entry.domain} domain provider (${entry.library}): ${reason}`,
    cause === undefined ? undefined : { cause },
  )

/** The canonical library path, or null for an optional entry whose file is missing. */
async function confinedLibraryPath(root: string, entry: ManifestEntry): Promise<string | null> {
  let real: string
  try {
    real = await realpath(join(root, entry.library))
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      if (!entry.required) return null
      throw startupError(entry, 'the library file does not exist under the provider directory')
    }
    throw startupError(entry, `the library path cannot be resolved (${errnoCode(error) ?? 'error'})`)
  }
  // Symlinks are followed first, so a link pointing outside the root is caught here.
  const rel = relative(root, real)
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw startupError(entry, 'the library resolves outside the provider directory')
  if (!(await stat(real)).isFile()) throw startupError(entry, 'the library path is not a regular file')
  return real
}

async function loadOne(path: string, entry: ManifestEntry): Promise<DomainProvider> {
  // The digest is checked on the bytes before anything is loaded, so a tampered file never runs.
  const digest = createHash('sha256')
    .update(await readFile(path))
    .digest('hex')
  if (digest !== entry.sha256)
    throw startupError(entry, `SHA-256 digest mismatch (manifest ${entry.sha256}, file ${digest})`)

  let library: NativeLibrary
  try {
    library = await openNativeLibrary(path)
  } catch (error) {
    throw startupError(entry, `the library cannot be loaded: ${(error as Error).message}`, error)
  }
  let handle: ProviderHandle | null = null
  try {
    const metadata = negotiate(library, entry)
    try {
      handle = library.create(createConfig(entry.domain))
    } catch (error) {
      throw startupError(entry, `create failed: ${(error as Error).message}`, error)
    }
    if (handle === null) throw startupError(entry, 'create returned no instance')
    try {
      parseHealth(library.health(handle, HEALTH_REPLY_LIMIT).toString('utf8'))
    } catch (error) {
      throw startupError(entry, `the instance is not healthy: ${(error as Error).message}`, error)
    }
    return new DomainProvider(nativeBackend(library, handle, metadata))
  } catch (error) {
    if (handle !== null) library.destroy(handle)
    library.close()
    throw error
  }
}

function negotiate(library: NativeLibrary, entry: ManifestEntry): ProviderMetadata {
  let version: number
  try {
    version = library.abiVersion()
  } catch (error) {
    throw startupError(entry, `not a provider interface v1 library: ${(error as Error).message}`, error)
  }
  const major = version >>> 16
  const minor = version & 0xffff
  if (major !== ABI_MAJOR || minor < ABI_MINOR)
    throw startupError(
      entry,
      `provider interface version ${major}.${minor} is not supported (the host needs ${ABI_MAJOR}.${ABI_MINOR} or a later ${ABI_MAJOR}.x)`,
    )
  try {
    return parseMetadata(
      library.metadata(METADATA_REPLY_LIMIT).toString('utf8'),
      entry.domain,
      entry.capabilities,
    )
  } catch (error) {
    throw startupError(entry, `invalid metadata: ${(error as Error).message}`, error)
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

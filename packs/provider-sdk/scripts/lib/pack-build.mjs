// Builds a pack package's provider where the pack is installed: its provider/*.c with the SDK's sources
// into <pack>/build/provider/libservice_<domain>_provider.so, then <pack>/build/provider/manifest.json
// pinning the library's SHA-256. The host loads a pack enabled by package name from exactly there.
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import {
  CAPABILITIES,
  compile,
  compiler,
  compilerAvailable,
  DOMAINS,
  libraryName,
  listFiles,
  sdkHeaders,
  sdkInclude,
  sdkSources,
  sha256File,
  writeManifestFile,
} from './native-build.mjs'

/** Relative to the pack: the trusted provider directory (library and manifest only) and build stamps. */
export const PACK_PROVIDER_DIR = join('build', 'provider')
const PACK_STAMP_DIR = join('build', 'stamps')

/** The pack's name and domain from its package.json ("service".domain must be one of the five). */
export function readPack(packDir) {
  const file = join(packDir, 'package.json')
  if (!existsSync(file)) throw new Error(`${packDir} has no package.json`)
  const json = JSON.parse(readFileSync(file, 'utf8'))
  const domain = json.service?.domain
  if (!DOMAINS.includes(domain))
    throw new Error(
      `${json.name ?? file}: "service".domain must be one of ${DOMAINS.join(', ')} (got ${JSON.stringify(domain)})`,
    )
  return { name: json.name, domain }
}

/**
 * Compiles the pack's provider (incremental) and rewrites its manifest. Throws when there is no C
 * compiler: a pack without its provider cannot be enabled, so its install must fail loudly.
 */
export function buildPackProvider(packDir, { extra = [] } = {}) {
  const root = resolve(packDir)
  const { name, domain } = readPack(root)
  if (!compilerAvailable())
    throw new Error(
      `no C compiler (${compiler()}) found: ${name} builds its ${domain} provider from C source at install; install gcc or clang (or set CC) and reinstall`,
    )
  const sourceDir = join(root, 'provider')
  const sources = listFiles(sourceDir, ['.c'])
  if (sources.length === 0) throw new Error(`${name}: no C source in ${sourceDir}`)
  const outDir = join(root, PACK_PROVIDER_DIR)
  const library = join(outDir, libraryName(domain))
  const built = compile({
    sources: [...sdkSources(), ...sources],
    headers: [...sdkHeaders(), ...listFiles(sourceDir, ['.h'])],
    includes: [sdkInclude, sourceDir],
    extra,
    output: library,
    stampDir: join(root, PACK_STAMP_DIR),
  })
  const manifest = join(outDir, 'manifest.json')
  writeManifestFile(manifest, [
    {
      domain,
      library: libraryName(domain),
      sha256: sha256File(library),
      required: true,
      capabilities: CAPABILITIES,
    },
  ])
  return { name, domain, library, manifest, built }
}

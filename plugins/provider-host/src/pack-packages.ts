import { existsSync, realpathSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { type Domain, isDomain } from './domains.js'
import { type PackDescriptor, PackError, packDescriptorFromPackageJson } from './packs.js'

/**
 * Packs are npm packages, found the way Node finds any package: a built-in short name (`cti`) stands for
 * `@service/pack-cti`, and any other entry of SERVICE_ENABLED_PACKS is a package name
 * (`@acme/service-pack-research`). Each is looked up in the deployment first, then beside the host.
 *
 * A package named by its package name brings its own provider: `@service/provider-sdk` built it from the
 * pack's C source at install into `build/provider/`, with a manifest pinning its digest, which the host
 * verifies like any other. The built-in short names keep their metadata only; their providers are the
 * ones the deployment's own manifest (SERVICE_DOMAIN_PROVIDER_DIR) lists.
 */

/** Where a package-installed pack's provider and its manifest live, relative to the package. */
export const PACK_PROVIDER_DIR = join('build', 'provider')
export const PACK_PROVIDER_MANIFEST = 'manifest.json'

export const builtInPackageName = (domain: Domain): string => `@service/pack-${domain}`

/** One manifest and the trusted directory of its libraries. */
export interface ProviderSource {
  dir: string
  manifestFile: string
}

export interface EnabledPack {
  /** As SERVICE_ENABLED_PACKS names it: a built-in short name or a package name. */
  name: string
  packageName: string
  /** The canonical package directory. */
  packageDir: string
  descriptor: PackDescriptor
  /** The provider the package built at install; null for a built-in short name. */
  provider: ProviderSource | null
}

/**
 * The directory of `packageName` as Node's module resolution finds it from `base` (the `node_modules`
 * folders from `base` up, then the global folders), or null. Looks for `<name>/package.json` itself, so a
 * package whose `exports` hide its package.json is still found.
 */
export function resolvePackageDir(packageName: string, base: string): string | null {
  const paths = createRequire(join(base, 'noop.js')).resolve.paths(packageName) ?? []
  for (const folder of paths) {
    const manifest = join(folder, packageName, 'package.json')
    if (existsSync(manifest)) return realpathSync(dirname(manifest))
  }
  return null
}

async function readPackageJson(file: string, name: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
  } catch (error) {
    throw new PackError(`the pack ${name} cannot be read from ${file}: ${(error as Error).message}`)
  }
}

/**
 * Resolves and reads each enabled pack, in order. Refuses a name that resolves nowhere, a package whose
 * metadata is invalid, two packs for one domain, and a package pack without its built provider.
 */
export async function loadPacks(
  names: readonly string[],
  options: { from: readonly string[] },
): Promise<EnabledPack[]> {
  const packs: EnabledPack[] = []
  const byDomain = new Map<Domain, string>()
  for (const name of names) {
    const builtIn = isDomain(name)
    const packageName = builtIn ? builtInPackageName(name) : name
    let packageDir: string | null = null
    for (const base of options.from) {
      packageDir = resolvePackageDir(packageName, base)
      if (packageDir !== null) break
    }
    if (packageDir === null)
      throw new PackError(
        `the pack ${name} (package ${packageName}) is not installed where the server looks (${options.from.join(', ')}); install it in the deployment, e.g. npm install ${packageName}`,
      )
    const json = await readPackageJson(join(packageDir, 'package.json'), name)
    if (json.name !== packageName)
      throw new PackError(
        `${join(packageDir, 'package.json')} is named ${String(json.name)}, not ${packageName}`,
      )
    const descriptor = packDescriptorFromPackageJson(json)
    if (builtIn && descriptor.domain !== name)
      throw new PackError(`${packageName} describes the ${descriptor.domain} pack, not ${name}`)
    const other = byDomain.get(descriptor.domain)
    if (other !== undefined)
      throw new PackError(
        `${other} and ${name} are both ${descriptor.domain} packs; enable one of them (one pack per domain)`,
      )
    byDomain.set(descriptor.domain, name)
    let provider: ProviderSource | null = null
    if (!builtIn) {
      const dir = join(packageDir, PACK_PROVIDER_DIR)
      provider = { dir, manifestFile: join(dir, PACK_PROVIDER_MANIFEST) }
      if (!existsSync(provider.manifestFile))
        throw new PackError(
          `the pack ${name} has no built provider (${provider.manifestFile} is missing); its install script builds it with @service/provider-sdk: run \`npm rebuild ${name}\` (with pnpm, allow its build in onlyBuiltDependencies, then \`pnpm rebuild ${name}\`)`,
        )
    }
    packs.push({ name, packageName, packageDir, descriptor, provider })
  }
  return packs
}

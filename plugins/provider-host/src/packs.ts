import { DOMAINS, type Domain, ENTERPRISE_DOMAINS, isDomain, NODE_VALIDATE } from './domains.js'
import { type Capability, expectCapabilities, isObject } from './strict-json.js'

/**
 * The registration point for domain packs. A pack is an npm package whose `package.json` carries a
 * `"service"` key (its domain, license module, gate policy, capabilities and vocabulary) next to the
 * source of its native provider. The deployment chooses which packs it enables (SERVICE_ENABLED_PACKS,
 * resolved in pack-packages.ts); for an enterprise domain that choice is the "build feature" gate.
 */

export interface PackVocabulary {
  /** Node labels the domain defines. */
  nodes: readonly string[]
  /** Relationship types the domain defines. */
  relationships: readonly string[]
}

export interface PackDescriptor {
  domain: Domain
  /** The license module that unlocks the pack (enterprise packs only need one). */
  module: string
  /** Enterprise packs pass three gates (deployment, license claim, provider); the others only the provider. */
  enterprise: boolean
  /** Capabilities the pack's provider declares; node.validate/1 for every v1 pack. */
  capabilities: readonly Capability[]
  vocabulary: PackVocabulary
}

export type PackDefinition = Omit<PackDescriptor, 'module' | 'capabilities' | 'enterprise'> & {
  module?: string
  capabilities?: readonly Capability[]
  enterprise?: boolean
}

export class PackError extends Error {
  override readonly name = 'PackError'
}

const LABEL = /^[A-Za-z][A-Za-z0-9_]*$/
const MODULE = /^[a-z][a-z0-9_-]*$/

function labels(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !LABEL.test(v)))
    throw new PackError(`${what} must be an array of identifiers (letters, digits, _)`)
  if (new Set(value).size !== value.length) throw new PackError(`${what} lists a name twice`)
  return [...(value as string[])]
}

/**
 * Validates and freezes a pack. Defaults: module = domain, capabilities = [node.validate/1], enterprise
 * as the host's gate policy says. The gate policy is the host's, not the pack's: a pack that declares
 * another one is refused rather than silently regated.
 */
export function definePack(definition: PackDefinition): PackDescriptor {
  const domain = definition.domain
  if (!isDomain(domain))
    throw new PackError(`pack domain '${String(domain)}' is not one of ${DOMAINS.join(', ')}`)
  const enterprise = ENTERPRISE_DOMAINS.has(domain)
  if (definition.enterprise !== undefined && definition.enterprise !== enterprise)
    throw new PackError(
      `the ${domain} pack declares enterprise ${definition.enterprise}, but the host gates ${domain} as ${enterprise ? 'enterprise' : 'open'}`,
    )
  const module = (definition.module ?? domain).trim().toLowerCase()
  if (!MODULE.test(module)) throw new PackError(`the ${domain} pack module '${module}' is not a module name`)
  let capabilities: Capability[]
  try {
    capabilities = expectCapabilities(
      definition.capabilities ?? [NODE_VALIDATE],
      `the ${domain} pack capabilities`,
    )
  } catch (error) {
    throw new PackError((error as Error).message)
  }
  if (!isObject(definition.vocabulary)) throw new PackError(`the ${domain} pack has no vocabulary`)
  const vocabulary = Object.freeze({
    nodes: Object.freeze(labels(definition.vocabulary.nodes, `the ${domain} pack vocabulary.nodes`)),
    relationships: Object.freeze(
      labels(definition.vocabulary.relationships, `the ${domain} pack vocabulary.relationships`),
    ),
  })
  return Object.freeze({ domain, module, enterprise, capabilities: Object.freeze(capabilities), vocabulary })
}

/** The descriptor in a pack's `package.json` (`"service": {domain, module?, enterprise?, capabilities?, vocabulary}`). */
export function packDescriptorFromPackageJson(json: unknown): PackDescriptor {
  const name = isObject(json) && typeof json.name === 'string' ? json.name : 'the package'
  const service = isObject(json) ? json.service : undefined
  if (!isObject(service)) throw new PackError(`${name} has no "service" pack metadata in its package.json`)
  try {
    return definePack(service as unknown as PackDefinition)
  } catch (error) {
    throw new PackError(`${name}: ${(error as Error).message}`)
  }
}

/** Packs enabled by default: the five built-in ones. */
export const DEFAULT_ENABLED_PACKS: readonly Domain[] = DOMAINS

/**
 * A pack package name SERVICE_ENABLED_PACKS accepts besides the built-in short names: scoped
 * (`@acme/service-pack-research`) or unscoped with the `service-pack-` prefix, so a mistyped short name
 * (`medcal`) is refused as a setting instead of being looked up as a package.
 */
const PACK_PACKAGE_NAME =
  /^(?:@[a-z0-9][a-z0-9._~-]*\/[a-z0-9][a-z0-9._~-]*|service-pack-[a-z0-9][a-z0-9._~-]*)$/

export const isPackPackageName = (name: string): boolean => name.length <= 214 && PACK_PACKAGE_NAME.test(name)

/**
 * Reads a comma list such as `cti,fimi,@acme/service-pack-research` (trimmed; short names in any case;
 * blank means none; repeats dropped). Unset means the five built-in packs.
 */
export function parseEnabledPacks(value: string | undefined): string[] {
  if (value === undefined) return [...DEFAULT_ENABLED_PACKS]
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '')
    .map((n) => (isDomain(n.toLowerCase()) ? n.toLowerCase() : n))
  const unknown = names.filter((n) => !isDomain(n) && !isPackPackageName(n))
  if (unknown.length > 0)
    throw new PackError(
      `unknown pack name(s) ${unknown.join(', ')} (a built-in pack: ${DOMAINS.join(', ')}; or a pack package: @scope/name or service-pack-<name>)`,
    )
  return [...new Set(names)]
}

import { type Domain, ENTERPRISE_DOMAINS, NODE_VALIDATE, parseDomain } from './domains.js'
import { GateErrors } from './errors.js'
import { licenseClaims, type VerifiedLicense } from './license.js'
import type { PackDescriptor } from './packs.js'
import type { ValidationResponse } from './protocol.js'
import type { DomainProvider } from './provider.js'
import type { ProviderRegistry } from './registry.js'
import type { Capability } from './strict-json.js'

export interface GateCheckOptions {
  /**
   * The capability the caller needs (default node.validate/1). Null skips the capability gate, for
   * callers that only need the domain enabled (seed-search profiles gate on feature, license, loaded).
   */
  capability?: Capability | null
}

export interface DomainGates {
  /**
   * Runs the gates, in order, for a domain as a caller wrote it (trimmed, any case) and returns the
   * provider. Throws DomainGateError: INVALID_DOMAIN 400; for cti/fimi/crisis FEATURE_NOT_AVAILABLE 403,
   * LICENSE_MODULE_MISSING 403; then DOMAIN_PROVIDER_NOT_READY 503, DOMAIN_PROVIDER_CAPABILITY_MISSING 503.
   */
  check(domain: string, options?: GateCheckOptions): DomainProvider
}

export interface ValidateOptions {
  requestId?: string | undefined
  workspaceId?: string | null | undefined
  snapshotId?: string | null | undefined
  /** Abort when the caller's request goes away or its handler budget runs out. */
  signal?: AbortSignal | undefined
  /** Default: the server request timeout. */
  timeoutMs?: number | undefined
}

export interface DomainProviders {
  /**
   * Gates, then one `node.validate` call. Besides the gate errors: DOMAIN_PROVIDER_ERROR 502 (call
   * failed, request or reply over the provider's limits, malformed reply) and REQUEST_TIMEOUT 504.
   */
  validate(domain: string, payload: unknown, options?: ValidateOptions): Promise<ValidationResponse>
  registry: ProviderRegistry
}

export interface GatePolicy {
  registry: ProviderRegistry
  /** The packs this deployment enables; for an enterprise domain, absence is FEATURE_NOT_AVAILABLE. */
  enabledPacks: readonly PackDescriptor[]
  license: () => VerifiedLicense | null
  now?: () => number
}

export function createDomainGates(policy: GatePolicy): DomainGates {
  const packs = new Map<Domain, PackDescriptor>(policy.enabledPacks.map((p) => [p.domain, p]))
  const now = policy.now ?? Date.now
  return {
    check(raw, options = {}) {
      const domain = parseDomain(raw)
      if (domain === null) throw GateErrors.invalidDomain(raw)
      if (ENTERPRISE_DOMAINS.has(domain)) {
        const pack = packs.get(domain)
        if (pack === undefined) throw GateErrors.featureNotAvailable(domain)
        if (!licenseClaims(policy.license(), pack.module, now()))
          throw GateErrors.licenseModuleMissing(domain, pack.module)
      }
      const provider = policy.registry.get(domain)
      if (provider === undefined) throw GateErrors.notReady(domain)
      if (!provider.ready) throw GateErrors.capabilityMissing(domain, 'is not ready')
      const capability = options.capability === undefined ? NODE_VALIDATE : options.capability
      if (capability !== null && !provider.supports(capability))
        throw GateErrors.capabilityMissing(
          domain,
          `does not declare ${capability.name}/${capability.version}`,
        )
      return provider
    },
  }
}

export function createDomainProviders(
  gates: DomainGates,
  registry: ProviderRegistry,
  requestTimeoutMs: number,
): DomainProviders {
  return {
    registry,
    async validate(domain, payload, options = {}) {
      const provider = gates.check(domain)
      return provider.validate(
        {
          payload,
          requestId: options.requestId,
          workspaceId: options.workspaceId,
          snapshotId: options.snapshotId,
        },
        { timeoutMs: options.timeoutMs ?? requestTimeoutMs, signal: options.signal },
      )
    },
  }
}

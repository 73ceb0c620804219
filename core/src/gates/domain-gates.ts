import { EngineError } from '../errors.js'
import type { ValidateNode } from '../stix/plan.js'

/** The enterprise domains: seed-search profiles and cti validation of these pass the domain gates. */
export const GATED_DOMAINS: ReadonlySet<string> = new Set(['cti', 'fimi', 'crisis'])

/**
 * What the deployment's provider host offers the engine. `check` throws the gate's own error (INVALID_DOMAIN,
 * FEATURE_NOT_AVAILABLE, LICENSE_MODULE_MISSING, DOMAIN_PROVIDER_NOT_READY, DOMAIN_PROVIDER_CAPABILITY_MISSING)
 * when the domain may not be used; `capability: null` checks only that the domain is enabled (feature,
 * license, provider loaded).
 */
export interface DomainGatePort {
  check(domain: string, options: { capability: null } | undefined): unknown
  validate(
    domain: string,
    payload: unknown,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<{ status: string; issues: { code: string; message: string }[] }>
}

/**
 * Domain gates as one core rule, so every door (embedded, HTTP, MCP, TAXII) enforces the same thing. The host
 * wires the provider host's gates in with `use`; until then no enterprise domain is part of the deployment.
 */
export class DomainGates {
  private port: DomainGatePort | null = null

  use(port: DomainGatePort): void {
    this.port = port
  }

  /** A seed-search profile: the enterprise ones need their domain's gates to pass. */
  checkProfile(profile: string): void {
    if (!GATED_DOMAINS.has(profile)) return
    if (this.port === null) throw notAvailable(profile)
    this.port.check(profile, { capability: null })
  }

  /**
   * The cti pack's node validation when it is deployed, licensed and ready (DECISIONS "Gating"); undefined
   * otherwise, and STIX validation and export go on without it.
   */
  ctiValidator(signal?: AbortSignal): ValidateNode | undefined {
    const port = this.port
    if (port === null) return undefined
    try {
      port.check('cti', undefined)
    } catch {
      return undefined
    }
    return async (payload) => {
      const reply = await port.validate('cti', payload, { signal })
      if (reply.status === 'failed')
        throw new EngineError('DOMAIN_PROVIDER_ERROR', 'the cti provider failed to validate a node')
      return reply
    }
  }
}

const notAvailable = (domain: string) =>
  new EngineError(
    'FEATURE_NOT_AVAILABLE',
    `the ${domain} domain is not part of this deployment (its pack is not enabled)`,
  )

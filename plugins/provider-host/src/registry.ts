import type { Domain } from './domains.js'
import type { DomainProvider } from './provider.js'

/** The figures /health and /metrics report for domain providers. */
export interface ProviderFigures {
  /** Entries in the manifest (loaded or skipped). */
  configured: number
  /** Providers loaded and ready. */
  ready: number
  all_required_ready: boolean
}

/** The loaded providers, one per domain, fixed for the life of the process (no hot reload). */
export interface ProviderRegistry {
  get(domain: Domain): DomainProvider | undefined
  list(): readonly DomainProvider[]
  figures(): ProviderFigures
  /** Destroys every instance once, after its running call returns. */
  close(): Promise<void>
}

export function createRegistry(
  providers: readonly DomainProvider[],
  options: { configured?: number; required?: ReadonlySet<Domain> } = {},
): ProviderRegistry {
  const byDomain = new Map(providers.map((p) => [p.domain, p]))
  const required = options.required ?? new Set<Domain>()
  let closing: Promise<void> | undefined
  return {
    get: (domain) => byDomain.get(domain),
    list: () => [...byDomain.values()],
    figures: () => ({
      configured: options.configured ?? providers.length,
      ready: providers.filter((p) => p.ready).length,
      all_required_ready: [...required].every((d) => byDomain.get(d)?.ready === true),
    }),
    close() {
      closing ??= Promise.all(providers.map((p) => p.close())).then(() => undefined)
      return closing
    },
  }
}

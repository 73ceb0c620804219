/** The five domains a provider can serve; the path segment of `/v1/domains/{domain}/validate`. */
export const DOMAINS = ['cti', 'fimi', 'crisis', 'medical', 'research'] as const
export type Domain = (typeof DOMAINS)[number]

/** Enterprise domains pass three gates (pack in the deployment, license claim, provider); the others one. */
export const ENTERPRISE_DOMAINS: ReadonlySet<Domain> = new Set<Domain>(['cti', 'fimi', 'crisis'])

/** The one capability of provider interface v1. */
export const NODE_VALIDATE = { name: 'node.validate', version: '1' } as const

export const isDomain = (value: string): value is Domain => (DOMAINS as readonly string[]).includes(value)

/** A domain as a caller wrote it (trimmed, any case), or null when it names none of the five. */
export function parseDomain(raw: string): Domain | null {
  const value = raw.trim().toLowerCase()
  return isDomain(value) ? value : null
}

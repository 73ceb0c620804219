/**
 * Errors of the provider host. Start-up faults (manifest, library, license) stop the process before it
 * listens; gate and call errors carry the spec's code and HTTP status and go through the shared envelope.
 * Messages name the domain and the reason, never license or key material.
 */

/** A provider could not be loaded; the host turns it into a non-zero exit before accepting traffic. */
export class ProviderStartupError extends Error {
  override readonly name = 'ProviderStartupError'
  readonly code = 'DOMAIN_PROVIDER_STARTUP_FAILED'
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

/** The license or its public key is unusable; start-up stops. */
export class LicenseError extends Error {
  override readonly name = 'LicenseError'
  readonly code = 'LICENSE_INVALID'
}

/** A refusal or failure with a spec code and an HTTP status (the shared error handler reads both). */
export class DomainGateError extends Error {
  override readonly name = 'DomainGateError'
  constructor(
    readonly code: DomainGateCode,
    readonly statusCode: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

export type DomainGateCode =
  | 'INVALID_DOMAIN'
  | 'FEATURE_NOT_AVAILABLE'
  | 'LICENSE_MODULE_MISSING'
  | 'DOMAIN_PROVIDER_NOT_READY'
  | 'DOMAIN_PROVIDER_CAPABILITY_MISSING'
  | 'DOMAIN_PROVIDER_ERROR'
  | 'REQUEST_TIMEOUT'

/**
 * The command that issues a development license, named by LICENSE_MODULE_MISSING. Its key is made on the
 * machine; a deployment trusts that license only when it is configured with the matching public key.
 */
export const DEV_LICENSE_COMMAND = 'service-http-server dev-license'

/** Every gate error, in the order the gates are checked. */
export const GateErrors = {
  invalidDomain: (raw: string) =>
    new DomainGateError(
      'INVALID_DOMAIN',
      400,
      `unknown domain '${raw.trim().slice(0, 64)}' (known: cti, fimi, crisis, medical, research)`,
    ),
  featureNotAvailable: (domain: string) =>
    new DomainGateError('FEATURE_NOT_AVAILABLE', 403, `the ${domain} pack is not part of this deployment`),
  licenseModuleMissing: (domain: string, module: string) =>
    new DomainGateError(
      'LICENSE_MODULE_MISSING',
      403,
      `no valid license claim for module '${module}' (domain ${domain}); supply a signed license (SERVICE_HTTP_LICENSE_PEM), or for development issue one with \`${DEV_LICENSE_COMMAND}\` (\`npm run dev-license\` in a checkout) and restart`,
    ),
  notReady: (domain: string) =>
    new DomainGateError('DOMAIN_PROVIDER_NOT_READY', 503, `no domain provider is loaded for ${domain}`),
  capabilityMissing: (domain: string, why: string) =>
    new DomainGateError('DOMAIN_PROVIDER_CAPABILITY_MISSING', 503, `the ${domain} provider ${why}`),
  providerError: (domain: string, why: string, cause?: unknown) =>
    new DomainGateError(
      'DOMAIN_PROVIDER_ERROR',
      502,
      `the ${domain} provider call failed: ${why}`,
      cause === undefined ? undefined : { cause },
    ),
  timeout: (domain: string, timeoutMs: number) =>
    new DomainGateError(
      'REQUEST_TIMEOUT',
      504,
      `the ${domain} provider did not answer within the request timeout of ${timeoutMs} ms`,
    ),
} as const

export const isDomainGateError = (error: unknown): error is DomainGateError =>
  error instanceof DomainGateError

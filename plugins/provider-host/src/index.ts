export { DOMAINS, type Domain, ENTERPRISE_DOMAINS, NODE_VALIDATE, parseDomain } from './domains.js'
export {
  DEV_LICENSE_COMMAND,
  type DomainGateCode,
  DomainGateError,
  GateErrors,
  isDomainGateError,
  LicenseError,
  ProviderStartupError,
} from './errors.js'
export {
  createDomainGates,
  createDomainProviders,
  type DomainGates,
  type DomainProviders,
  type GateCheckOptions,
  type GatePolicy,
  type ValidateOptions,
} from './gates.js'
export {
  LICENSE_PEM_LABEL,
  type LicenseClaims,
  type LicenseSettings,
  type LicenseSummary,
  licenseSummary,
  loadLicense,
  type VerifiedLicense,
  verifyLicense,
} from './license.js'
export { generateLicenseKeyPair, issueLicense, type LicenseRequest } from './license-issuer.js'
export {
  ABI_MAJOR,
  ABI_MINOR,
  type LoadProvidersOptions,
  loadProviderSources,
  loadProviders,
  type ProviderLog,
  type ProviderSourceOptions,
} from './loader.js'
export { type ManifestEntry, type ProviderManifest, parseManifest } from './manifest.js'
export {
  builtInPackageName,
  type EnabledPack,
  loadPacks,
  PACK_PROVIDER_DIR,
  PACK_PROVIDER_MANIFEST,
  type ProviderSource,
  resolvePackageDir,
} from './pack-packages.js'
export {
  DEFAULT_ENABLED_PACKS,
  definePack,
  isPackPackageName,
  type PackDefinition,
  type PackDescriptor,
  PackError,
  type PackVocabulary,
  packDescriptorFromPackageJson,
  parseEnabledPacks,
} from './packs.js'
export { default as providerHostPlugin, type LicenseState, type ProviderHostOptions } from './plugin.js'
export type {
  InvokeRequest,
  ProviderMetadata,
  ValidationIssue,
  ValidationResponse,
} from './protocol.js'
export {
  type CallBudget,
  DomainProvider,
  type ProviderBackend,
  type ProviderStatusRecord,
  type ValidateInput,
} from './provider.js'
export { createRegistry, type ProviderFigures, type ProviderRegistry } from './registry.js'
export type { Capability } from './strict-json.js'

import { Nullable, StringEnum } from '@service/plugin-errors'
import { type Static, Type } from 'typebox'

const DomainNames = ['cti', 'fimi', 'crisis', 'medical', 'research'] as const

export const DomainParams = Type.Object({
  // Any string: an unknown domain is the gate's 400 INVALID_DOMAIN, not a schema failure.
  domain: Type.String({ description: `One of ${DomainNames.join(', ')} (trimmed, any case).` }),
})
export type DomainParams = Static<typeof DomainParams>

export const DomainValidateBody = Type.Object(
  {
    payload: Type.Unknown({ description: 'Any JSON value; forwarded to the provider untouched.' }),
    request_id: Type.Optional(
      Type.String({ description: 'Echoed by the provider; a new UUID when absent.' }),
    ),
    workspace_id: Type.Optional(Type.String()),
    snapshot_id: Type.Optional(Type.String()),
  },
  { $id: 'DomainValidateRequest' },
)
export type DomainValidateBody = Static<typeof DomainValidateBody>

export const Capability = Type.Object({ name: Type.String(), version: Type.String() })

export const DomainValidationIssue = Type.Object({
  code: Type.String(),
  message: Type.String(),
  severity: StringEnum(['error', 'warning']),
  field: Nullable(Type.String()),
  node_id: Nullable(Type.String()),
})

export const DomainValidationResult = Type.Object(
  {
    schema_version: Type.Literal('1'),
    request_id: Type.String(),
    status: StringEnum(['accepted', 'rejected', 'failed']),
    issues: Type.Array(DomainValidationIssue),
    diagnostics: Nullable(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'DomainValidationResult' },
)

export const LicenseSummary = Type.Object(
  {
    // legacy_env is in the spec's enum but never produced (DECISIONS.md).
    source: StringEnum(['signed_pem', 'legacy_env', 'none']),
    client_uuid: Nullable(Type.String()),
    client_email: Nullable(Type.String()),
    modules: Type.Array(Type.String()),
    valid_until: Nullable(Type.String()),
    is_nfr: Type.Boolean(),
  },
  { $id: 'LicenseSummary' },
)

export const DomainProviderStatus = Type.Object(
  {
    provider_id: Type.String(),
    provider_version: Type.String(),
    // The spec's table lists cti, fimi, crisis; medical and research providers are listed too (FACTS §2).
    domain: StringEnum(DomainNames),
    capabilities: Type.Array(Capability),
    ready: Type.Boolean(),
  },
  { $id: 'DomainProviderStatus' },
)

export const DomainProviderStatusList = Type.Object(
  { providers: Type.Array(DomainProviderStatus) },
  { $id: 'DomainProviderStatusList' },
)

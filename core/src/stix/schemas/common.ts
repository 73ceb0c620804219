/**
 * Building blocks of the STIX 2.1 object schemas, written from the specification's property tables
 * (sections 2 and 3 of STIX 2.1 CS03/OS). Objects stay open: STIX allows custom properties, whose names
 * are checked separately (see `rules.ts`).
 */
import { type TObject, type TProperties, Type } from 'typebox'

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}'
export const IDENTIFIER_PATTERN = `^[a-z][a-z0-9-]+[a-z0-9]--${UUID}$`
export const TYPE_PATTERN = '^([a-z][a-z0-9]*)+(-[a-z0-9]+)*-?$'
const DATE_TIME =
  '^[0-9]{4}-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)'
export const TIMESTAMP_PATTERN = `${DATE_TIME}(\\.[0-9]+)?Z$`
const MILLIS_PATTERN = `${DATE_TIME}\\.[0-9]{3,}Z$`

export const Identifier = (type?: string) =>
  type === undefined
    ? Type.String({ pattern: IDENTIFIER_PATTERN })
    : Type.String({ pattern: `^${type}--${UUID}$` })
export const Timestamp = Type.String({ pattern: TIMESTAMP_PATTERN })
/** created/modified must be precise to the millisecond. */
export const TimestampMillis = Type.String({ pattern: MILLIS_PATTERN })
export const Str = Type.String()
export const StrList = Type.Array(Type.String(), { minItems: 1 })
export const Refs = (type?: string) => Type.Array(Identifier(type), { minItems: 1 })
export const Dict = Type.Object({}, { minProperties: 1 })
export const Int = (minimum?: number, maximum?: number) =>
  Type.Integer({
    ...(minimum === undefined ? {} : { minimum }),
    ...(maximum === undefined ? {} : { maximum }),
  })

const HASH_VALUE: Record<string, string> = {
  MD5: '^[a-fA-F0-9]{32}$',
  'SHA-1': '^[a-fA-F0-9]{40}$',
  'SHA-256': '^[a-fA-F0-9]{64}$',
  'SHA-512': '^[a-fA-F0-9]{128}$',
  'SHA3-256': '^[a-fA-F0-9]{64}$',
  'SHA3-512': '^[a-fA-F0-9]{128}$',
  SSDEEP: '^[a-zA-Z0-9/+:.]{1,128}$',
  TLSH: '^[a-zA-Z0-9]{70}$',
}
/** Hashes: known algorithms constrain their value; custom keys are 3..250 chars of [a-zA-Z0-9_-]. */
export const Hashes = Type.Object(
  Object.fromEntries(
    Object.entries(HASH_VALUE).map(([k, p]) => [k, Type.Optional(Type.String({ pattern: p }))]),
  ),
  {
    minProperties: 1,
    propertyNames: {
      pattern: '^(MD5|SHA-1|SHA-256|SHA-512|SHA3-256|SHA3-512|SSDEEP|TLSH|[a-zA-Z0-9_-]{3,250})$',
    },
    additionalProperties: Type.String(),
  },
)

export const ExternalReference = Type.Object({
  source_name: Str,
  description: Type.Optional(Str),
  url: Type.Optional(Str),
  hashes: Type.Optional(Hashes),
  external_id: Type.Optional(Str),
})

export const KillChainPhase = Type.Object({ kill_chain_name: Str, phase_name: Str })

export const GranularMarking = Type.Object({
  selectors: Type.Array(
    Type.String({ pattern: '^([a-z0-9_-]{3,249}(\\.(\\[\\d+\\]|[a-z0-9_-]{1,250}))*|id)$' }),
    {
      minItems: 1,
    },
  ),
  lang: Type.Optional(Str),
  marking_ref: Type.Optional(Identifier('marking-definition')),
})

const EXTENSION_KEY = `^(([a-z][a-z0-9]*)+(-[a-z0-9]+)*-ext|extension-definition--${UUID})$`
export const Extensions = Type.Object(
  {},
  { minProperties: 1, propertyNames: { pattern: EXTENSION_KEY }, additionalProperties: Dict },
)

/** Common properties of SDOs and SROs (STIX 2.1 §3.2), shared by custom `x-` domain objects. */
export const sdoCore = (type: TObject['properties'][string]) => ({
  type,
  spec_version: Type.Literal('2.1'),
  id: Identifier(),
  created_by_ref: Type.Optional(Identifier('identity')),
  created: TimestampMillis,
  modified: TimestampMillis,
  revoked: Type.Optional(Type.Boolean()),
  labels: Type.Optional(StrList),
  confidence: Type.Optional(Int(0, 100)),
  lang: Type.Optional(Str),
  external_references: Type.Optional(Type.Array(ExternalReference, { minItems: 1 })),
  object_marking_refs: Type.Optional(Refs('marking-definition')),
  granular_markings: Type.Optional(Type.Array(GranularMarking, { minItems: 1 })),
  extensions: Type.Optional(Extensions),
})

/** Common properties of SCOs (STIX 2.1 §6.1). */
export const scoCore = (type: TObject['properties'][string]) => ({
  type,
  id: Identifier(),
  spec_version: Type.Optional(Type.Literal('2.1')),
  object_marking_refs: Type.Optional(Refs('marking-definition')),
  granular_markings: Type.Optional(Type.Array(GranularMarking, { minItems: 1 })),
  defanged: Type.Optional(Type.Boolean()),
  extensions: Type.Optional(Extensions),
})

export const sdo = (type: string, props: TProperties) =>
  Type.Object({ ...sdoCore(Type.Literal(type)), ...props }, { $id: type })
export const sco = (type: string, props: TProperties) =>
  Type.Object({ ...scoCore(Type.Literal(type)), ...props }, { $id: type })

export const Optional = Type.Optional
export const Enum = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)))

import { type TSchema, Type } from 'typebox'
import { Compile } from 'typebox/compile'
import { scoCore, sdoCore, TYPE_PATTERN } from './common.js'
import { SCO_SCHEMAS } from './sco.js'
import { SDO_SCHEMAS } from './sdo.js'
import { META_SCHEMAS, SRO_SCHEMAS } from './sro.js'

export interface SchemaError {
  keyword: string
  /** JSON pointer of the offending value, '' for the object itself. */
  instancePath: string
  params: Record<string, unknown>
  message: string
}

interface Checker {
  Check(value: unknown): boolean
  Errors(value: unknown): Iterable<SchemaError>
}

const CustomType = Type.String({ pattern: TYPE_PATTERN, minLength: 3, maxLength: 250 })

/** Every schema the product carries, by STIX type; custom types are checked against the two cores. */
export const STIX_SCHEMAS: ReadonlyMap<string, TSchema> = new Map(
  [...SDO_SCHEMAS, ...SRO_SCHEMAS, ...META_SCHEMAS, ...SCO_SCHEMAS].map((s) => [
    (s as { $id?: string }).$id as string,
    s as TSchema,
  ]),
)
const CUSTOM_SDO = Type.Object(sdoCore(CustomType))
const CUSTOM_SCO = Type.Object(scoCore(CustomType))

const compiled = new Map<TSchema, Checker>()
function checker(schema: TSchema): Checker {
  let c = compiled.get(schema)
  if (c === undefined) {
    c = Compile(schema) as unknown as Checker
    compiled.set(schema, c)
  }
  return c
}

/** Schema errors of one object (an empty list when it conforms). Compiled lazily, once per type. */
export function schemaErrors(type: string, object: Record<string, unknown>): SchemaError[] {
  const schema = STIX_SCHEMAS.get(type) ?? ('created' in object ? CUSTOM_SDO : CUSTOM_SCO)
  const c = checker(schema)
  return c.Check(object) ? [] : [...c.Errors(object)]
}

export const isKnownType = (type: string): boolean => STIX_SCHEMAS.has(type)

import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

const base: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false }

function ajv(options: Options): Ajv {
  const instance = new Ajv({ ...base, ...options })
  addFormats.default(instance)
  return instance
}

/**
 * JSON bodies are validated strictly (a number is never turned into a string, unknown fields are refused
 * where a schema says so); query strings and path parameters arrive as text and are coerced to the schema's
 * types, which is the only way `?limit=10` can be an integer.
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = ajv({ coerceTypes: false })
  const coercing = ajv({ coerceTypes: 'array' })
  return ({ schema, httpPart }) => {
    const compiled = (httpPart === 'body' ? strict : coercing).compile(schema as object)
    return (data: unknown) =>
      compiled(data)
        ? { value: data }
        : {
            error: Object.assign(
              new Error(strict.errorsText(compiled.errors, { dataVar: httpPart ?? 'request' })),
              { validation: compiled.errors, validationContext: httpPart },
            ),
          }
  }
}

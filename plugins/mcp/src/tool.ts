import type { MemoryPermission } from '@service/core'
import { type TObject, type TSchema, Type } from 'typebox'
import type { CallContext, McpBackend } from './backend.js'

export interface ToolAnnotations {
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint: false
}

export const READ: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
}
/** A write that a derived or given idempotency key makes safe to retry. */
export const KEYED_WRITE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
}

export interface ToolRun {
  backend: McpBackend
  call: CallContext
}

export interface ToolOutput {
  structured: Record<string, unknown>
  /** A short rendering for clients that show text only; the full result is the structured content. */
  text: string
}

/** One MCP tool: a thin door onto the backend, with its schemas, hints and the permission it needs. */
export interface ToolDefinition {
  name: string
  title: string
  description: string
  input: TObject
  /** The success shape; the error shape is added by the server. */
  output: TObject
  permission: MemoryPermission
  annotations: ToolAnnotations
  /** Mutations take an optional idempotency_key; without one it is derived from the name and the input. */
  keyed?: boolean
  /** Listed only when this returns true for the backend (e.g. cypher_write behind its setting). */
  enabled?: (backend: McpBackend) => boolean
  run(args: Record<string, unknown>, run: ToolRun): Promise<ToolOutput>
}

/** Structured content of a refused call: the contract code and message. */
export const ToolErrorSchema = Type.Object(
  { error: Type.Object({ code: Type.String(), message: Type.String() }) },
  { additionalProperties: false },
)

/** What every bounded result says about itself. */
export const PageSchema = Type.Object(
  {
    complete: Type.Boolean(),
    truncated: Type.Array(Type.String(), { description: 'What was left out, by name.' }),
    next: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'Arguments to add to the same call for the next page; null when complete.',
    }),
  },
  { additionalProperties: false },
)

/** The output schema a client sees: the tool's result or the error shape, both objects. */
export function outputSchemaOf(tool: ToolDefinition): Record<string, unknown> {
  return { type: 'object', anyOf: [tool.output, ToolErrorSchema] }
}

/** A JSON Schema of a TypeBox schema, without TypeBox's symbol keys. */
export const plainSchema = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema))

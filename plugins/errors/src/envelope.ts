import { type Static, Type } from 'typebox'

/** The spec's error envelope. `correlation_id` is an allowed extra (DECISIONS.md). */
export const ErrorEnvelope = Type.Object(
  {
    ok: Type.Literal(false),
    error: Type.Object({ code: Type.String(), message: Type.String() }),
    correlation_id: Type.Optional(Type.String()),
  },
  { $id: 'ErrorEnvelope', description: 'Every error: {ok:false,error:{code,message}}' },
)
export type ErrorEnvelope = Static<typeof ErrorEnvelope>

/** Wraps a result schema in the success envelope `{ok:true,result}`. */
export const okEnvelope = <T extends Parameters<typeof Type.Object>[0][string]>(result: T) =>
  Type.Object({ ok: Type.Literal(true), result })

export const errorEnvelope = (code: string, message: string, correlationId?: string): ErrorEnvelope =>
  correlationId === undefined
    ? { ok: false, error: { code, message } }
    : { ok: false, error: { code, message }, correlation_id: correlationId }

/** Standard error responses to attach to a route schema so the OpenAPI document lists them. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, ErrorEnvelope]))

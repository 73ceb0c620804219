import { EngineError } from '../errors.js'

/** The spec's explorer projection limits: min, max and default of each budget. */
export const PROJECTION_LIMITS = {
  max_nodes: { min: 1, max: 50_000, default: 5_000 },
  max_relationships: { min: 1, max: 100_000, default: 10_000 },
  max_properties_per_record: { min: 1, max: 256, default: 32 },
  max_payload_bytes: { min: 1_024, max: 16_777_216, default: 2_097_152 },
  max_computation_units: { min: 1, max: 1_000_000, default: 100_000 },
} as const

export type ProjectionBudget = { -readonly [K in keyof typeof PROJECTION_LIMITS]: number }

const invalid = (message: string) => new EngineError('INVALID_VISUALIZATION_PROJECTION', message)

/** Parses each budget from text (a query string), refusing anything outside [min, max] by name. */
export function parseBudget(
  input: Partial<Record<keyof ProjectionBudget, string | number | undefined>>,
): ProjectionBudget {
  const budget = {} as ProjectionBudget
  for (const [name, limit] of Object.entries(PROJECTION_LIMITS) as [
    keyof ProjectionBudget,
    (typeof PROJECTION_LIMITS)[keyof ProjectionBudget],
  ][]) {
    const raw = input[name]
    if (raw === undefined || raw === '') {
      budget[name] = limit.default
      continue
    }
    const text = String(raw).trim()
    if (!/^-?\d+$/.test(text))
      throw invalid(`${name} must be an integer between ${limit.min} and ${limit.max}`)
    const value = Number(text)
    if (value < limit.min || value > limit.max) {
      throw invalid(`${name} must be between ${limit.min} and ${limit.max} (got ${text})`)
    }
    budget[name] = value
  }
  return budget
}

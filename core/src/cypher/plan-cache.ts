import { CypherError } from './errors.js'
import { type CypherBudgets, emptySummary } from './executor/context.js'
import { type CypherOutcome, validationError } from './outcome.js'
import type { Plan } from './plan.js'
import { planQuery } from './planner.js'
import type { ProcedureRegistry } from './procedures/registry.js'

/**
 * Plans by query text, least recently used first out. A writer in a loop sends the same text again and
 * again: the last entry is answered without touching the map's order.
 */
export class PlanCache {
  private readonly cache = new Map<string, Plan>()
  /** The most recently used entry (its LRU position needs no update). */
  private lastQuery: string | undefined
  private lastPlan: Plan | undefined

  constructor(
    private readonly size: number,
    private readonly budgets: CypherBudgets,
    private readonly procedures: ProcedureRegistry,
  ) {}

  /** Parses and plans, or answers from the cache; compile errors propagate as CypherError. */
  get(query: string): Plan {
    if (query === this.lastQuery) return this.lastPlan as Plan
    const cached = this.cache.get(query)
    if (cached !== undefined) {
      this.cache.delete(query)
      this.cache.set(query, cached)
      this.lastQuery = query
      this.lastPlan = cached
      return cached
    }
    const { plan, errors } = this.compile(query, false)
    if (plan === undefined)
      throw errors[0] ?? new CypherError('CYPHER_SYNTAX_ERROR', 'invalid query', 'compile')
    this.cache.set(query, plan)
    if (this.cache.size > this.size) this.cache.delete(this.cache.keys().next().value as string)
    this.lastQuery = query
    this.lastPlan = plan
    return plan
  }

  /** Forgets every plan (a procedure registered since may change what a query resolves to). */
  clear(): void {
    this.cache.clear()
    this.lastQuery = undefined
    this.lastPlan = undefined
  }

  /** `mode: 'validate'`: every compile error of the query, nothing run and nothing cached. */
  validate(query: string): CypherOutcome {
    const { plan, errors } = this.compile(query, true)
    if (plan === undefined) {
      return {
        result: {
          status: 'ValidationFailed',
          data: null,
          mutation_summary: emptySummary(),
          validation_errors: errors.map(validationError),
          warnings: [],
        },
        ...(errors[0] ? { error: errors[0] } : {}),
      }
    }
    return {
      result: {
        status: 'Success',
        data: null,
        mutation_summary: emptySummary(),
        validation_errors: [],
        warnings: [],
      },
      classification: plan.isWrite ? 'write' : 'read',
    }
  }

  private compile(query: string, collectErrors: boolean): ReturnType<typeof planQuery> {
    return planQuery(query, {
      maxExpressionDepth: this.budgets.maxExpressionDepth,
      maxVariableLengthHops: this.budgets.maxVariableLengthHops,
      collectErrors,
      procedures: this.procedures,
    })
  }
}

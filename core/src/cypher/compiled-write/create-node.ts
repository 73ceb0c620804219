import { PropertyMap } from '../../graph/property-map.js'
import type { Transaction } from '../../graph/transaction.js'
import type { PropertyValue } from '../../graph/types.js'
import { budgetError, runtimeError } from '../errors.js'
import type { MutationSummary } from '../executor/context.js'
import { InternedNames, toProperty } from '../executor/write.js'
import { NodeValue, type Value } from '../values.js'
import type { NodeCreateShape } from './recognise.js'

/**
 * `CREATE (v:L {k: $p, …}) [RETURN v]` run straight against the transaction: what the general pipeline does
 * for it (executor/write.ts runCreatePart, one row), in the same order (property keys interned, values
 * checked in map order, then labels), with the same errors, counters and mutation budget; without the row,
 * the stage chain and the expression closures around it.
 */
export class CompiledNodeCreate {
  private readonly keys: InternedNames
  private readonly labels: InternedNames
  private readonly labelsAdded: number
  /** Per value: the parameter's name, or undefined where `literals` holds a literal. */
  private readonly params: (string | undefined)[]
  private readonly literals: Value[]

  constructor(private readonly shape: NodeCreateShape) {
    this.keys = new InternedNames(shape.keys)
    this.labels = new InternedNames(shape.labels)
    this.labelsAdded = new Set(shape.labels).size
    this.params = shape.values.map((source) => ('param' in source ? source.param : undefined))
    this.literals = shape.values.map((source) => ('literal' in source ? source.literal : null))
  }

  /** Creates the node; the result rows (the node, when the query returns it). */
  run(
    tx: Transaction,
    params: ReadonlyMap<string, Value>,
    stats: MutationSummary,
    maxMutations: number,
  ): Value[][] {
    const names = tx.names
    const keyIds = this.keys.of(names)
    const props: Map<number, PropertyValue> = new PropertyMap()
    for (let i = 0; i < keyIds.length; i++) {
      const name = this.params[i]
      let value: Value | undefined = this.literals[i]
      if (name !== undefined) {
        value = params.get(name)
        if (value === undefined) throw runtimeError('PARAMETER_MISSING', `expected parameter $${name}`)
      }
      const property = toProperty(value as Value)
      if (property !== undefined) props.set(keyIds[i] as number, property)
    }
    const id = tx.createNode(this.labels.of(names), props)
    stats.created_nodes++
    stats.labels_added += this.labelsAdded
    stats.properties_set += props.size
    if (tx.opCount > maxMutations) throw budgetError('mutation_count', tx.opCount, maxMutations)
    return this.shape.returns ? [[new NodeValue(id)]] : []
  }
}

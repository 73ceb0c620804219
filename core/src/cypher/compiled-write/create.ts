import { PropertyMap } from '../../graph/property-map.js'
import type { Transaction } from '../../graph/transaction.js'
import type { PropertyValue } from '../../graph/types.js'
import { budgetError, runtimeError } from '../errors.js'
import type { MutationSummary } from '../executor/context.js'
import { InternedNames, toProperty } from '../executor/write.js'
import { NodeValue, RelValue, type Value } from '../values.js'
import type { CreateShape, PropsShape } from './recognise.js'

/** A property map of parameters and literals, ready to evaluate: keys interned once per name table. */
class CompiledProps {
  private readonly keys: InternedNames
  /** Per value: the parameter's name, or undefined where `literals` holds a literal. */
  private readonly params: (string | undefined)[]
  private readonly literals: Value[]

  constructor(shape: PropsShape) {
    this.keys = new InternedNames(shape.keys)
    this.params = shape.values.map((source) => ('param' in source ? source.param : undefined))
    this.literals = shape.values.map((source) => ('literal' in source ? source.literal : null))
  }

  /** A fresh map (the store adopts it): keys interned first, then each value checked in the order written. */
  build(tx: Transaction, params: ReadonlyMap<string, Value>): Map<number, PropertyValue> {
    const keyIds = this.keys.of(tx.names)
    const props = new PropertyMap()
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
    return props
  }
}

interface CompiledNode {
  labels: InternedNames
  /** Distinct labels: what `labels_added` counts. */
  labelsAdded: number
  props: CompiledProps
}

interface CompiledRel {
  type: InternedNames
  inward: boolean
  props: CompiledProps
}

/**
 * A CREATE of new nodes and relationships (recognise.ts) run straight against the transaction: what the
 * general pipeline does for it (executor/write.ts runCreatePart over one row), in the same order (per part its
 * nodes, then its relationships; per element its property keys interned, values checked in map order, then
 * labels or type), with the same errors, counters and mutation budget; without the row, the stage chain and
 * the expression closures around it.
 */
export class CompiledCreate {
  private readonly parts: { nodes: CompiledNode[]; rels: CompiledRel[] }[]

  constructor(private readonly shape: CreateShape) {
    this.parts = shape.parts.map((part) => ({
      nodes: part.nodes.map((node) => ({
        labels: new InternedNames(node.labels),
        labelsAdded: new Set(node.labels).size,
        props: new CompiledProps(node),
      })),
      rels: part.rels.map((rel) => ({
        type: new InternedNames([rel.type]),
        inward: rel.inward,
        props: new CompiledProps(rel),
      })),
    }))
  }

  /** Creates the elements; the result rows (the returned element, when the query returns one). */
  run(
    tx: Transaction,
    params: ReadonlyMap<string, Value>,
    stats: MutationSummary,
    maxMutations: number,
  ): Value[][] {
    const returns = this.shape.returns
    let returned: Value = null
    for (let p = 0; p < this.parts.length; p++) {
      const { nodes, rels } = this.parts[p] as (typeof this.parts)[number]
      const ids: number[] = []
      for (const node of nodes) {
        const props = node.props.build(tx, params)
        ids.push(tx.createNode(node.labels.of(tx.names), props))
        stats.created_nodes++
        stats.labels_added += node.labelsAdded
        stats.properties_set += props.size
      }
      for (let i = 0; i < rels.length; i++) {
        const rel = rels[i] as CompiledRel
        const left = ids[i] as number
        const right = ids[i + 1] as number
        const props = rel.props.build(tx, params)
        const type = rel.type.of(tx.names)[0] as number
        const id = tx.createRelationship(type, rel.inward ? right : left, rel.inward ? left : right, props)
        stats.created_relationships++
        stats.properties_set += props.size
        if (returns?.part === p && returns.kind === 'rel' && returns.index === i) returned = new RelValue(id)
      }
      if (returns?.part === p && returns.kind === 'node')
        returned = new NodeValue(ids[returns.index] as number)
      if (tx.opCount > maxMutations) throw budgetError('mutation_count', tx.opCount, maxMutations)
    }
    return returns === undefined ? [] : [[returned]]
  }
}

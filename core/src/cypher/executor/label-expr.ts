import type { Interner } from '../../graph/types.js'
import type { LabelExpr } from '../ast.js'

/** True when a record with these label (or, for a relationship, type) ids satisfies the label expression. */
export function labelExprMatches(expr: LabelExpr, ids: readonly number[], names: Interner): boolean {
  switch (expr.kind) {
    case 'label': {
      const id = names.lookup(expr.name)
      return id >= 0 && ids.includes(id)
    }
    case 'any':
      return ids.length > 0
    case 'not':
      return !labelExprMatches(expr.operand, ids, names)
    case 'and':
      return labelExprMatches(expr.left, ids, names) && labelExprMatches(expr.right, ids, names)
    case 'or':
      return labelExprMatches(expr.left, ids, names) || labelExprMatches(expr.right, ids, names)
  }
}

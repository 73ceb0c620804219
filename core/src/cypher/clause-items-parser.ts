import type {
  Expr,
  Projection,
  ProjectionItem,
  PropertyTarget,
  RemoveItem,
  SetItem,
  SortItem,
} from './ast.js'
import { SchemaParser } from './schema-parser.js'

/** The item lists clauses hold: RETURN/WITH projections (ORDER BY, SKIP, LIMIT included) and SET/REMOVE items. */
export abstract class ClauseItemsParser extends SchemaParser {
  protected parseProjection(): Projection {
    const distinct = this.acceptKeyword('DISTINCT')
    let star = false
    const items: ProjectionItem[] = []
    if (this.acceptPunct('*')) {
      star = true
      if (!this.acceptPunct(',')) return this.parseProjectionTail(distinct, star, items)
    }
    do {
      const start = this.peek().start
      const expr = this.parseExpr()
      const text = this.text.slice(start, this.lastEnd())
      const alias = this.acceptKeyword('AS') ? this.expectName('an alias') : undefined
      items.push({ expr, alias, text, start, end: this.lastEnd() })
    } while (this.acceptPunct(','))
    return this.parseProjectionTail(distinct, star, items)
  }

  protected parseProjectionTail(distinct: boolean, star: boolean, items: ProjectionItem[]): Projection {
    const orderBy: SortItem[] = []
    if (this.acceptKeyword('ORDER')) {
      this.expectKeyword('BY')
      do {
        const expr = this.parseExpr()
        let descending = false
        if (this.acceptKeyword('DESC') || this.acceptKeyword('DESCENDING')) descending = true
        else if (!this.acceptKeyword('ASC')) this.acceptKeyword('ASCENDING')
        orderBy.push({ expr, descending })
      } while (this.acceptPunct(','))
    }
    const skip = this.acceptKeyword('SKIP') || this.acceptKeyword('OFFSET') ? this.parseExpr() : undefined
    const limit = this.acceptKeyword('LIMIT') ? this.parseExpr() : undefined
    return { distinct, star, items, orderBy, skip, limit }
  }

  protected parseSetItems(): SetItem[] {
    const items: SetItem[] = []
    do {
      const start = this.peek().start
      if (this.isName() && (this.isPunct('=', 1) || this.isPunct('+=', 1))) {
        const variable = this.expectName()
        const merge = this.next().text === '+='
        const value = this.parseExpr()
        items.push({ kind: 'setAll', variable, value, merge, start, end: this.lastEnd() })
      } else if (this.isName() && this.isPunct(':', 1)) {
        const variable = this.expectName()
        const { labels, dynamic } = this.parseLabelItems()
        items.push({ kind: 'setLabels', variable, labels, ...dynamic, start, end: this.lastEnd() })
      } else {
        const target = this.parsePropertyTarget()
        this.expectPunct('=')
        const value = this.parseExpr()
        items.push({ kind: 'setProperty', target, value, start, end: this.lastEnd() })
      }
    } while (this.acceptPunct(','))
    return items
  }

  protected parseRemoveItems(): RemoveItem[] {
    const items: RemoveItem[] = []
    do {
      const start = this.peek().start
      if (this.isName() && this.isPunct(':', 1)) {
        const variable = this.expectName()
        const { labels, dynamic } = this.parseLabelItems()
        items.push({ kind: 'removeLabels', variable, labels, ...dynamic, start, end: this.lastEnd() })
      } else
        items.push({ kind: 'removeProperty', target: this.parsePropertyTarget(), start, end: this.lastEnd() })
    } while (this.acceptPunct(','))
    return items
  }

  /** `:A:B`, `:$(expr)` of SET/REMOVE: static labels and those computed per row. */
  private parseLabelItems(): { labels: string[]; dynamic: { dynamic?: Expr[] } } {
    const labels: string[] = []
    const dynamic: Expr[] = []
    while (this.acceptPunct(':')) {
      if (this.isPunct('$')) dynamic.push(this.parseDynamicName())
      else labels.push(this.expectName('a label'))
    }
    return { labels, dynamic: dynamic.length > 0 ? { dynamic } : {} }
  }

  /** `n.key`, `(expr).key` or `n[expr]` (a dynamic key): the target of SET/REMOVE of one property. */
  private parsePropertyTarget(): PropertyTarget {
    const start = this.peek().start
    let target: Expr
    if (this.acceptPunct('(')) {
      target = this.parseExpr()
      this.expectPunct(')')
    } else target = { kind: 'var', name: this.expectName('a variable'), start, end: this.lastEnd() }
    let expr: Expr = target
    while (this.acceptPunct('.')) {
      expr = {
        kind: 'prop',
        target: expr,
        key: this.expectName('a property key'),
        start,
        end: this.lastEnd(),
      }
    }
    if (this.acceptPunct('[')) {
      const index = this.parseExpr()
      this.expectPunct(']')
      return { kind: 'index', target: expr, index, start, end: this.lastEnd() }
    }
    if (expr.kind !== 'prop') throw this.unexpected("'.' and a property key, or '[' and a key")
    return expr
  }
}

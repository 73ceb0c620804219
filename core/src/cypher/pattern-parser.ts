import type { Expr, NodePattern, PatternPart, RelPattern } from './ast.js'
import { ExpressionParser } from './expression-parser.js'

/** Path patterns: `(a:Label {k: v})-[r:TYPE*1..3]->(b)`, with the expressions their property maps hold. */
export abstract class PatternParser extends ExpressionParser {
  parsePatternPart(): PatternPart {
    const start = this.peek().start
    let variable: string | undefined
    if (this.isName() && this.isPunct('=', 1)) {
      variable = this.expectName()
      this.next()
    }
    if (this.isKeyword('SHORTESTPATH') || this.isKeyword('ALLSHORTESTPATHS')) {
      throw this.errorAt('UNSUPPORTED_CYPHER_FEATURE', 'shortestPath is not supported', this.peek().start)
    }
    const nodes: NodePattern[] = [this.parseNodePattern()]
    const rels: RelPattern[] = []
    while (this.isPunct('-') || (this.isPunct('<') && this.isPunct('-', 1))) {
      rels.push(this.parseRelPattern())
      nodes.push(this.parseNodePattern())
    }
    return { variable, nodes, rels, start, end: this.lastEnd() }
  }

  private parseNodePattern(): NodePattern {
    const start = this.expectPunct('(').start
    let variable: string | undefined
    if (this.isName()) variable = this.expectName()
    const labels: string[] = []
    while (this.acceptPunct(':')) labels.push(this.expectName('a label'))
    let props: Expr | undefined
    if (this.isPunct('{')) props = this.parseMapLiteral()
    else if (this.peek().kind === 'param') {
      const token = this.next()
      props = { kind: 'param', name: token.text, start: token.start, end: token.end }
    }
    this.expectPunct(')')
    return { kind: 'node', variable, labels, props, start, end: this.lastEnd() }
  }

  private parseRelPattern(): RelPattern {
    const start = this.peek().start
    const left = this.acceptPunct('<')
    this.expectPunct('-')
    let variable: string | undefined
    const types: string[] = []
    let props: Expr | undefined
    let varLength: RelPattern['varLength']
    if (this.acceptPunct('[')) {
      if (this.isName()) variable = this.expectName()
      if (this.acceptPunct(':')) {
        types.push(this.expectName('a relationship type'))
        while (this.acceptPunct('|')) {
          this.acceptPunct(':')
          types.push(this.expectName('a relationship type'))
        }
      }
      if (this.acceptPunct('*')) varLength = this.parseRange()
      if (this.isPunct('{')) props = this.parseMapLiteral()
      else if (this.peek().kind === 'param') {
        const token = this.next()
        props = { kind: 'param', name: token.text, start: token.start, end: token.end }
      }
      this.expectPunct(']')
      this.expectPunct('-')
    } else this.expectPunct('-')
    const right = this.acceptPunct('>')
    // `<-->` is the same as `--`: either direction.
    const direction = left && right ? 'both' : left ? 'in' : right ? 'out' : 'both'
    return { kind: 'rel', variable, types, direction, props, varLength, start, end: this.lastEnd() }
  }

  private parseRange(): { min: number | undefined; max: number | undefined } {
    const bound = (): number | undefined => {
      const token = this.peek()
      if (token.kind !== 'int') return undefined
      this.next()
      return Number(token.text)
    }
    const min = bound()
    if (this.acceptPunct('..')) return { min, max: bound() }
    return { min, max: min }
  }
}

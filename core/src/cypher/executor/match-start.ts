import { freeVariables, type Scope } from '../analyzer.js'
import type { Expr, PatternPart } from '../ast.js'

/** A WHERE conjunct and the variables it reads: a seek may use it once they are bound. */
export interface Filter {
  vars: Set<string>
  expr: Expr
}

export interface StartChoice {
  index: number
  seek: { label: string; key: string; value: Expr } | undefined
}

/** Picks where to start a pattern part: a bound node, then an index seek, then a label scan. */
export function chooseStart(
  part: PatternPart,
  scope: Scope,
  filters: Filter[],
  bound: Set<string>,
): StartChoice {
  let best: StartChoice = { index: 0, seek: undefined }
  let bestScore = 4
  const constantHere = (expr: Expr): boolean => {
    for (const v of freeVariables(expr)) if (!bound.has(v)) return false
    return true
  }
  part.nodes.forEach((node, index) => {
    let score = 3
    let seek: StartChoice['seek']
    if (node.variable !== undefined && scope.has(node.variable)) score = 0
    else if (node.labels.length > 0) {
      score = 2
      const label = node.labels[0] as string
      if (node.props?.kind === 'map') {
        for (const [key, value] of node.props.entries) {
          if (constantHere(value)) {
            seek = { label, key, value }
            break
          }
        }
      }
      if (seek === undefined && node.variable !== undefined) {
        for (const filter of filters) {
          const eq = filter.expr
          if (eq.kind !== 'binary' || eq.op !== '=') continue
          for (const [a, b] of [
            [eq.left, eq.right],
            [eq.right, eq.left],
          ] as const) {
            if (
              a.kind === 'prop' &&
              a.target.kind === 'var' &&
              a.target.name === node.variable &&
              constantHere(b)
            ) {
              seek = { label, key: a.key, value: b }
              break
            }
          }
          if (seek) break
        }
      }
      if (seek) score = 1
    }
    if (score < bestScore) {
      bestScore = score
      best = { index, seek }
    }
  })
  return best
}

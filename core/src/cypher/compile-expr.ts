import { exprKey, type Scope, staticType } from './analyzer.js'
import type { Expr, PatternPart } from './ast.js'
import { compileCall } from './compile-call.js'
import { constant, type Eval, type Matcher } from './compiled.js'
import { runtimeError, typeError } from './errors.js'
import { checkListSize } from './executor/context.js'
import { labelExprMatches } from './executor/label-expr.js'
import { propertiesOf } from './functions.js'
import {
  add,
  arithmetic,
  cachedName,
  comparison,
  concat,
  indexValue,
  inList,
  negate,
  property,
  regexMatch,
  sliceValue,
  stringPredicate,
} from './operators.js'
import { hasType } from './type-predicate.js'
import { type CypherMap, equals, NodeValue, RelValue, truth, typeName, type Value } from './values.js'

export type { Eval, Matcher } from './compiled.js'

export interface ExprEnv {
  readonly text: string
  allocSlot(): number
  report(code: string, message: string, at: number): void
  /** Compiles a pattern used inside an expression; its new variables are local to it. */
  pattern(part: PatternPart, where: Expr | undefined, scope: Scope): { matcher: Matcher; scope: Scope }
  /** Compiles `EXISTS { … }`, `COUNT { … }`, `COLLECT { … }` with the outer variables in scope. */
  subquery(expr: Expr & { kind: 'subquery' }, scope: Scope): Eval
}

/** Compiles expressions to closures once per plan; evaluation is then a tree of direct calls. */
export class ExpressionCompiler {
  /** Set while compiling an aggregating projection: aggregate call -> slot holding its result. */
  aggregateSlots: Map<Expr, number> | undefined
  /** Set while compiling ORDER BY: structural key of a projected expression -> its slot. */
  substitutions: Map<string, number> | undefined

  constructor(private readonly env: ExprEnv) {}

  report(code: string, message: string, at: number): void {
    this.env.report(code, message, at)
  }

  compile(expr: Expr, scope: Scope): Eval {
    if (this.substitutions !== undefined) {
      const slot = this.substitutions.get(exprKey(expr))
      if (slot !== undefined) return (row) => row[slot] as Value
    }
    switch (expr.kind) {
      case 'literal':
        return constant(expr.value)
      case 'param': {
        const name = expr.name
        return (_row, ctx) => {
          const value = ctx.params.get(name)
          if (value === undefined) throw runtimeError('PARAMETER_MISSING', `expected parameter $${name}`)
          return value
        }
      }
      case 'var': {
        const binding = scope.get(expr.name)
        if (binding === undefined) {
          this.env.report('UNDEFINED_VARIABLE', `variable '${expr.name}' is not defined`, expr.start)
          return constant(null)
        }
        const slot = binding.slot
        return (row) => row[slot] as Value
      }
      case 'prop': {
        if (expr.target.kind === 'var' && scope.get(expr.target.name)?.kind === 'path') {
          this.env.report(
            'INVALID_ARGUMENT_TYPE',
            `a path has no properties ('${expr.target.name}.${expr.key}')`,
            expr.start,
          )
        }
        const t = staticType(expr.target)
        if (t !== undefined && t !== 'map' && t !== 'null') {
          this.env.report('INVALID_ARGUMENT_TYPE', `cannot read property '${expr.key}' of a ${t}`, expr.start)
        }
        const target = this.compile(expr.target, scope)
        const key = expr.key
        const resolve = cachedName(key)
        return (row, ctx) => property(target(row, ctx), key, ctx, resolve)
      }
      case 'index': {
        const target = this.compile(expr.target, scope)
        const index = this.compile(expr.index, scope)
        return (row, ctx) => indexValue(target(row, ctx), index(row, ctx), ctx)
      }
      case 'slice': {
        const target = this.compile(expr.target, scope)
        const from = expr.from ? this.compile(expr.from, scope) : undefined
        const to = expr.to ? this.compile(expr.to, scope) : undefined
        return (row, ctx) => sliceValue(target(row, ctx), from?.(row, ctx), to?.(row, ctx))
      }
      case 'list': {
        const items = expr.items.map((item) => this.compile(item, scope))
        return (row, ctx) => {
          const out: Value[] = new Array(items.length)
          for (let i = 0; i < items.length; i++) out[i] = (items[i] as Eval)(row, ctx)
          return out
        }
      }
      case 'map': {
        const entries = expr.entries.map(([key, value]) => [key, this.compile(value, scope)] as const)
        return (row, ctx) => {
          const out: CypherMap = new Map()
          for (const [key, value] of entries) out.set(key, value(row, ctx))
          return out
        }
      }
      case 'mapProjection':
        return this.mapProjection(expr, scope)
      case 'unary': {
        const operand = this.compile(expr.operand, scope)
        if (expr.op === 'NOT') {
          this.expectBoolean(expr.operand)
          return (row, ctx) => {
            const v = truth(operand(row, ctx))
            return v === null ? null : !v
          }
        }
        if (expr.op === '-') return (row, ctx) => negate(operand(row, ctx))
        return (row, ctx) => {
          const v = operand(row, ctx)
          if (v !== null && typeof v !== 'bigint' && typeof v !== 'number')
            throw typeError(`cannot apply unary + to ${typeName(v)}`)
          return v
        }
      }
      case 'binary':
        return this.binary(expr, scope)
      case 'isNull': {
        const operand = this.compile(expr.operand, scope)
        return expr.negated
          ? (row, ctx) => operand(row, ctx) !== null
          : (row, ctx) => operand(row, ctx) === null
      }
      case 'hasLabels': {
        const target = this.compile(expr.target, scope)
        const labels = expr.labels
        return (row, ctx) => {
          const v = target(row, ctx)
          if (v === null) return null
          if (v instanceof RelValue) {
            // Neo4j 5: `r:T` tests a relationship's type.
            const type = ctx.graph.relType(v.id)
            return labels.every((label) => ctx.graph.names.lookup(label) === type)
          }
          if (!(v instanceof NodeValue)) throw typeError(`label predicate on ${typeName(v)}`)
          const node = ctx.graph.node(v.id)
          if (node === undefined) return null
          for (const label of labels) {
            const id = ctx.graph.names.lookup(label)
            if (id < 0 || !node.labels.includes(id)) return false
          }
          return true
        }
      }
      case 'labelExpr': {
        const target = this.compile(expr.target, scope)
        const labelExpr = expr.expr
        return (row, ctx) => {
          const v = target(row, ctx)
          if (v === null) return null
          if (v instanceof RelValue)
            return labelExprMatches(labelExpr, [ctx.graph.relType(v.id)], ctx.graph.names)
          if (!(v instanceof NodeValue)) throw typeError(`label expression on ${typeName(v)}`)
          const node = ctx.graph.node(v.id)
          return node === undefined ? null : labelExprMatches(labelExpr, node.labels, ctx.graph.names)
        }
      }
      case 'typePredicate': {
        const operand = this.compile(expr.operand, scope)
        const { type, negated } = expr
        return (row, ctx) => hasType(operand(row, ctx), type) !== negated
      }
      case 'subquery':
        return this.env.subquery(expr, scope)
      case 'call':
        return compileCall(expr, scope, this)
      case 'case':
        return this.caseExpr(expr, scope)
      case 'listComp': {
        this.checkIterable(expr.source)
        const source = this.compile(expr.source, scope)
        const slot = this.env.allocSlot()
        const inner = scope.with(expr.variable, { slot, kind: 'value' })
        const where = expr.where ? this.compile(expr.where, inner) : undefined
        const project = expr.project ? this.compile(expr.project, inner) : undefined
        return (row, ctx) => {
          const list = traversable(source(row, ctx))
          if (list === null) return null
          const out: Value[] = []
          for (const item of list) {
            row[slot] = item
            if (where && truth(where(row, ctx)) !== true) continue
            out.push(project ? project(row, ctx) : item)
          }
          return out
        }
      }
      case 'quantifier': {
        this.checkIterable(expr.source)
        const source = this.compile(expr.source, scope)
        const slot = this.env.allocSlot()
        const where = this.compile(expr.where, scope.with(expr.variable, { slot, kind: 'value' }))
        const quantifier = expr.quantifier
        return (row, ctx) => {
          const list = traversable(source(row, ctx))
          if (list === null) return null
          let trues = 0
          let unknown = 0
          for (const item of list) {
            row[slot] = item
            const t = truth(where(row, ctx))
            if (t === true) trues++
            else if (t === null) unknown++
          }
          const falses = list.length - trues - unknown
          switch (quantifier) {
            case 'all':
              return falses > 0 ? false : unknown > 0 ? null : true
            case 'any':
              return trues > 0 ? true : unknown > 0 ? null : false
            case 'none':
              return trues > 0 ? false : unknown > 0 ? null : true
            case 'single':
              return trues > 1 ? false : unknown > 0 ? null : trues === 1
          }
        }
      }
      case 'reduce': {
        const init = this.compile(expr.init, scope)
        this.checkIterable(expr.source)
        const source = this.compile(expr.source, scope)
        const accSlot = this.env.allocSlot()
        const itemSlot = this.env.allocSlot()
        const inner = scope
          .with(expr.accumulator, { slot: accSlot, kind: 'value' })
          .with(expr.variable, { slot: itemSlot, kind: 'value' })
        const step = this.compile(expr.expr, inner)
        return (row, ctx) => {
          const list = traversable(source(row, ctx))
          if (list === null) return null
          row[accSlot] = init(row, ctx)
          for (const item of list) {
            row[itemSlot] = item
            row[accSlot] = step(row, ctx)
          }
          return row[accSlot] as Value
        }
      }
      case 'patternExists': {
        // A pattern predicate tests; it cannot introduce variables.
        const named = [
          expr.pattern.variable,
          ...expr.pattern.nodes.map((n) => n.variable),
          ...expr.pattern.rels.map((r) => r.variable),
        ]
        for (const name of named) {
          if (name !== undefined && !scope.has(name))
            this.env.report(
              'UNDEFINED_VARIABLE',
              `variable '${name}' is not defined (a pattern predicate cannot introduce it)`,
              expr.start,
            )
        }
        const { matcher } = this.env.pattern(expr.pattern, undefined, scope)
        return (row, ctx) => {
          let found = false
          matcher(row, ctx, () => {
            found = true
            return false
          })
          return found
        }
      }
      case 'patternComp': {
        const { matcher, scope: inner } = this.env.pattern(expr.pattern, expr.where, scope)
        const project = this.compile(expr.project, inner)
        return (row, ctx) => {
          const out: Value[] = []
          matcher(row, ctx, (matched) => {
            out.push(project(matched, ctx))
            checkListSize(ctx, out.length)
            return true
          })
          return out
        }
      }
    }
  }

  /** Literal operands of boolean operators are checked at compile time. */
  private expectBoolean(expr: Expr): void {
    const t = staticType(expr)
    if (t !== undefined && t !== 'boolean' && t !== 'null') {
      this.env.report('INVALID_ARGUMENT_TYPE', `expected a boolean but got a ${t}`, expr.start)
    }
  }

  private binary(expr: Expr & { kind: 'binary' }, scope: Scope): Eval {
    if (expr.op === 'AND' || expr.op === 'OR' || expr.op === 'XOR') {
      this.expectBoolean(expr.left)
      this.expectBoolean(expr.right)
    }
    const left = this.compile(expr.left, scope)
    const right = this.compile(expr.right, scope)
    switch (expr.op) {
      case 'AND':
        return (row, ctx) => {
          const a = truth(left(row, ctx))
          if (a === false) return false
          const b = truth(right(row, ctx))
          if (b === false) return false
          return a === null || b === null ? null : true
        }
      case 'OR':
        return (row, ctx) => {
          const a = truth(left(row, ctx))
          if (a === true) return true
          const b = truth(right(row, ctx))
          if (b === true) return true
          return a === null || b === null ? null : false
        }
      case 'XOR':
        return (row, ctx) => {
          const a = truth(left(row, ctx))
          const b = truth(right(row, ctx))
          return a === null || b === null ? null : a !== b
        }
      case '=':
        return (row, ctx) => equals(left(row, ctx), right(row, ctx))
      case '<>':
        return (row, ctx) => {
          const eq = equals(left(row, ctx), right(row, ctx))
          return eq === null ? null : !eq
        }
      case '<':
      case '>':
      case '<=':
      case '>=': {
        const op = expr.op
        return (row, ctx) => comparison(op, left(row, ctx), right(row, ctx))
      }
      case '+':
        return (row, ctx) => add(left(row, ctx), right(row, ctx), ctx)
      case '||':
        return (row, ctx) => concat(left(row, ctx), right(row, ctx), ctx)
      case '-':
      case '*':
      case '/':
      case '%':
      case '^': {
        const op = expr.op
        return (row, ctx) => arithmetic(op, left(row, ctx), right(row, ctx))
      }
      case 'IN': {
        const r = expr.right
        if (r.kind === 'literal' && r.value !== null) {
          this.env.report('INVALID_ARGUMENT_TYPE', 'IN expects a list', r.start)
        } else if (r.kind === 'map') this.env.report('INVALID_ARGUMENT_TYPE', 'IN expects a list', r.start)
        return (row, ctx) => inList(left(row, ctx), right(row, ctx))
      }
      case 'STARTS WITH':
      case 'ENDS WITH':
      case 'CONTAINS': {
        const op = expr.op
        return (row, ctx) => stringPredicate(op, left(row, ctx), right(row, ctx))
      }
      case '=~':
        return (row, ctx) => regexMatch(left(row, ctx), right(row, ctx), ctx)
    }
  }

  /**
   * A literal or map that is no list cannot be iterated (Neo4j refuses it when compiling); a value only known
   * when the query runs is iterated as a list of itself if it is no list (`traversable`).
   */
  private checkIterable(source: Expr): void {
    const t = staticType(source)
    if (t !== undefined && t !== 'list' && t !== 'null')
      this.env.report('INVALID_ARGUMENT_TYPE', `expected a list to iterate, got a ${t}`, source.start)
  }

  private caseExpr(expr: Expr & { kind: 'case' }, scope: Scope): Eval {
    const subject = expr.subject ? this.compile(expr.subject, scope) : undefined
    const whens = expr.whens.map(
      ([when, then]) => [this.compile(when, scope), this.compile(then, scope)] as const,
    )
    const otherwise = expr.otherwise ? this.compile(expr.otherwise, scope) : constant(null)
    if (subject) {
      return (row, ctx) => {
        const value = subject(row, ctx)
        for (const [when, then] of whens) if (equals(value, when(row, ctx)) === true) return then(row, ctx)
        return otherwise(row, ctx)
      }
    }
    return (row, ctx) => {
      for (const [when, then] of whens) if (truth(when(row, ctx)) === true) return then(row, ctx)
      return otherwise(row, ctx)
    }
  }

  private mapProjection(expr: Expr & { kind: 'mapProjection' }, scope: Scope): Eval {
    const target = this.compile(
      { kind: 'var', name: expr.variable, start: expr.start, end: expr.start },
      scope,
    )
    const items = expr.items.map((item) => {
      if (item.kind === 'entry')
        return { kind: 'entry' as const, key: item.key, value: this.compile(item.value, scope) }
      if (item.kind === 'variable') {
        const value = this.compile(
          { kind: 'var', name: item.name, start: expr.start, end: expr.start },
          scope,
        )
        return { kind: 'entry' as const, key: item.name, value }
      }
      if (item.kind === 'property') return { kind: 'property' as const, key: item.key, value: undefined }
      return { kind: 'all' as const, key: '', value: undefined }
    })
    return (row, ctx) => {
      const base = target(row, ctx)
      if (base === null) return null
      const out: CypherMap = new Map()
      for (const item of items) {
        if (item.kind === 'all') {
          for (const [k, v] of propertiesOf(base, ctx) as CypherMap) out.set(k, v)
        } else if (item.kind === 'property') out.set(item.key, property(base, item.key, ctx))
        else out.set(item.key, (item.value as Eval)(row, ctx))
      }
      return out
    }
  }
}

/**
 * What a list comprehension, a list predicate or reduce() iterates: a list, or any other value as a list of
 * itself, as Neo4j does (a property holding one value where others hold lists: `any(x IN p.tags WHERE …)`).
 */
function traversable(value: Value): Value[] | null {
  if (value === null) return null
  return Array.isArray(value) ? value : [value]
}

import { type Binding, conjuncts, freeVariables, type Scope, type VarKind } from '../analyzer.js'
import type { Direction, Expr, NodePattern, PatternPart, RelPattern } from '../ast.js'
import type { ExpressionCompiler, Matcher } from '../compile-expr.js'
import { budgetError } from '../errors.js'
import { NodeValue, PathValue, RelValue, truth } from '../values.js'
import { type ExecContext, load, type Row, type RowCounter } from './context.js'
import { boundListStep, type ExpandSpec, expandStep, pathStep, varExpandStep } from './expand.js'
import { longGroupStep, longGroupVariables } from './long-group.js'
import { chooseStart, type Filter, type StartChoice } from './match-start.js'
import { allNodesStep, boundNodeStep, labelScanStep, nodeCheck, propCheck, seekStep } from './node-steps.js'
import { compileHop, groupListsStep, groupNodeVariables } from './quantified-group.js'
import { shortestStep } from './shortest.js'
import type { Cont, Step } from './steps.js'
export interface MatchEnv {
  readonly exprs: ExpressionCompiler
  readonly maxHops: number
  allocSlot(): number
  report(code: string, message: string, at: number): void
  /** How the clause being compiled counts its rows (the planner's choice; `load` when absent). */
  readonly rowCounter?: RowCounter
}

export interface CompiledMatch {
  /** Input scope plus the variables the pattern binds. */
  scope: Scope
  matcher: Matcher
  /** Slots the pattern binds (set to null by OPTIONAL MATCH when nothing matches). */
  newSlots: number[]
  /** Human-readable operator list, for tests and diagnostics. */
  plan: string[]
  /** With `resumable` asked: true when the first pattern starts with a scan a streamed run can resume. */
  resumable: boolean
}

/** Compiles MATCH patterns (also MERGE's match half and pattern expressions) into a matcher. */
export function compileMatch(
  env: MatchEnv,
  parts: PatternPart[],
  where: Expr | undefined,
  input: Scope,
  options: { countLoaded: boolean; optional: boolean; resumable?: boolean },
): CompiledMatch {
  // Read first: compiling the pattern's subqueries moves the planner on to their clauses.
  const counter = env.rowCounter ?? load
  const scope = input.copy()
  const steps: Step[] = []
  const plan: string[] = []
  const newSlots: number[] = []
  const clauseRels: { slot: number; list: boolean }[] = []
  let resumable = false
  const declaredRels = new Set<string>()
  // A path variable cannot also name a node or relationship of the same MATCH.
  for (const part of parts) {
    if (part.variable === undefined) continue
    const name = part.variable
    if (parts.some((other) => [...other.nodes, ...other.rels].some((element) => element.variable === name)))
      env.report(
        'VARIABLE_ALREADY_BOUND',
        `variable '${name}' is already defined in this pattern`,
        part.start,
      )
  }
  // Inline `WHERE` of node and relationship patterns joins the clause's WHERE (so does a parenthesised
  // pattern's, but under a path selector, which applies it before choosing).
  const inline: Expr[] = []
  for (const part of parts) if (part.where && part.shortest === undefined) inline.push(part.where)
  // (A quantified relationship's inline WHERE holds at each hop: it is compiled with the hop.)
  for (const part of parts)
    for (const element of [...part.nodes, ...part.rels])
      if (element.where && !(element.kind === 'rel' && element.varLength !== undefined))
        inline.push(element.where)
  const pending: Filter[] = [...(where ? conjuncts(where) : []), ...inline].map((expr) => ({
    expr,
    vars: freeVariables(expr),
  }))
  const whereVars = new Set<string>()
  for (const filter of pending) for (const v of filter.vars) whereVars.add(v)
  // Pre-declare every pattern variable so WHERE conjuncts can be placed; slots are assigned as we go.
  let anon = 0
  const bindNew = (name: string | undefined, kind: VarKind, at: number): { name: string; slot: number } => {
    const key = name ?? ` anon${anon++}@${at}`
    const slot = env.allocSlot()
    scope.define(key, { slot, kind })
    newSlots.push(slot)
    return { name: key, slot }
  }
  // A group's inner node variables: lists of the nodes each hop left and reached, bound after its expansion.
  const groupListSlots = (rel: RelPattern): { left: number; right: number } | undefined => {
    const names = groupNodeVariables(rel)
    if (names.length === 0) return undefined
    const [left, right] = rel.hopNodes as [NodePattern, NodePattern]
    const slotOf = new Map(names.map((name) => [name, bindNew(name, 'value', rel.start).slot]))
    const slot = (node: NodePattern) =>
      node.variable !== undefined ? (slotOf.get(node.variable) as number) : -1
    return { left: slot(left), right: slot(right) }
  }
  const pushGroupLists = (
    slots: { left: number; right: number } | undefined,
    outerLeft: number,
    relSlot: number,
  ) => {
    if (slots === undefined) return
    steps.push(groupListsStep(outerLeft, relSlot, slots.left, slots.right))
    plan.push('GroupVariables')
  }
  const bindGroupLists = (rel: RelPattern, outerLeft: number, relSlot: number): void =>
    pushGroupLists(groupListSlots(rel), outerLeft, relSlot)
  const flushFilters = (): void => {
    for (let i = 0; i < pending.length; i++) {
      const filter = pending[i] as Filter
      let ready = true
      for (const v of filter.vars) {
        if (!scope.has(v) && isPatternVar(parts, v)) {
          ready = false
          break
        }
      }
      if (!ready) continue
      pending.splice(i--, 1)
      if (filter.expr.kind === 'var') {
        const kind = scope.get(filter.expr.name)?.kind
        if (kind === 'node' || kind === 'rel' || kind === 'path')
          env.report('INVALID_ARGUMENT_TYPE', `'${filter.expr.name}' is not a predicate`, filter.expr.start)
      }
      const pred = env.exprs.compile(filter.expr, scope)
      plan.push('Filter')
      steps.push((next) => (row, ctx, emit) => (truth(pred(row, ctx)) === true ? next(row, ctx, emit) : true))
    }
  }
  flushFilters()

  for (const part of parts) {
    for (const element of [...part.nodes, ...part.rels]) {
      if (element.props?.kind === 'param') {
        env.report(
          'INVALID_PARAMETER_USE',
          'a parameter cannot be used as a property map in MATCH or MERGE',
          element.props.start,
        )
      }
    }
    if (part.variable !== undefined && scope.has(part.variable)) {
      env.report('VARIABLE_ALREADY_BOUND', `variable '${part.variable}' is already defined`, part.start)
    }
    for (const rel of part.rels) {
      if (rel.variable === undefined) continue
      if (declaredRels.has(rel.variable)) {
        env.report(
          'RELATIONSHIP_UNIQUENESS_VIOLATION',
          `relationship variable '${rel.variable}' is used twice in one pattern`,
          rel.start,
        )
      }
      declaredRels.add(rel.variable)
    }
    if (part.shortest !== undefined) {
      const rel = part.rels[0] as RelPattern
      if (rel.group)
        env.report(
          'UNSUPPORTED_CYPHER_FEATURE',
          'a shortest path over a quantified group of more than one hop is not supported',
          rel.start,
        )
      const ends = part.nodes.map((node) => {
        const existing = lookupNode(env, scope, node)
        const check = nodeCheck(env, node, scope)
        if (existing !== undefined) {
          plan.push(`Argument(${node.variable})`)
          steps.push(boundNodeStep(existing.slot, check))
          return existing.slot
        }
        const { slot, name } = bindNew(node.variable, 'node', node.start)
        if (node.labels.length > 0) {
          plan.push(`NodeByLabelScan(${name}:${node.labels.join(':')})`)
          steps.push(labelScanStep(slot, node.labels, check))
        } else {
          plan.push(`AllNodesScan(${name})`)
          steps.push(allNodesStep(slot, check, false))
        }
        flushFilters()
        return slot
      })
      const relList = rel.varLength !== undefined
      const hop = compileHop(env, rel, scope, (node) => nodeCheck(env, node, scope))
      const relSlot = bindNew(rel.variable, relList ? 'relList' : 'rel', rel.start).slot
      const pathSlot = part.variable !== undefined ? bindNew(part.variable, 'path', part.start).slot : -1
      const lists = groupListSlots(rel)
      // A parenthesised pattern's WHERE judges each candidate path before the shortest are chosen.
      const accept = part.where
        ? compileAccept(env, part.where, scope, relSlot, relList, pathSlot, lists)
        : undefined
      const { all, k, groups } = part.shortest
      const min = rel.varLength?.min ?? 1
      // The breadth-first search (one shortest, or all of the shortest length) reads each relationship once,
      // so an unbounded `*` is bounded by the adjacency budget alone; walks by length keep the hop bound.
      const breadthFirst = min <= 1 && k === 1
      const unbounded = breadthFirst ? Number.MAX_SAFE_INTEGER : env.maxHops
      const max = rel.varLength ? (rel.varLength.max ?? unbounded) : 1
      if (max > env.maxHops && rel.varLength?.max !== undefined)
        throw budgetError('variable_length_hops', max, env.maxHops)
      plan.push(
        `${all ? 'AllShortestPaths' : 'ShortestPath'}(${rel.direction} *${min}..${max}${k > 1 ? ` k=${k}` : ''})`,
      )
      steps.push(
        shortestStep({
          from: ends[0] as number,
          to: ends[1] as number,
          rel: relSlot,
          relBound: false,
          toBound: true,
          types: rel.types,
          typeExpr: rel.typeExpr,
          direction: rel.direction,
          relCheck: rel.props ? propCheck(env, rel.props, scope) : undefined,
          toCheck: undefined,
          used: [],
          min,
          max,
          all,
          k,
          path: pathSlot,
          relList,
          ...(hop ? { hop } : {}),
          ...(groups ? { groups } : {}),
          ...(accept ? { accept } : {}),
        }),
      )
      pushGroupLists(lists, ends[0] as number, relSlot)
      flushFilters()
      continue
    }
    const boundBefore = new Set<string>()
    for (const [name] of scope.entries()) boundBefore.add(name)
    const start = chooseStart(part, scope, pending, boundBefore)
    const nodeSlots: number[] = new Array(part.nodes.length)
    const relSlots: number[] = new Array(part.rels.length)
    // Start node.
    {
      const node = part.nodes[start.index] as NodePattern
      const existing = lookupNode(env, scope, node)
      const check = nodeCheck(env, node, scope)
      if (existing !== undefined) {
        nodeSlots[start.index] = existing.slot
        plan.push(`Argument(${node.variable})`)
        steps.push(boundNodeStep(existing.slot, check))
      } else {
        const { slot, name } = bindNew(node.variable, 'node', node.start)
        nodeSlots[start.index] = slot
        // The first pattern's scan or seek is the streamed source when asked (a streamed run resumes it).
        const source = options.resumable === true && !options.optional && part === parts[0]
        if (source) resumable = true
        if (start.seek !== undefined) {
          plan.push(`NodeIndexSeek(${name}:${start.seek.label}.${start.seek.key})`)
          steps.push(
            seekStep(
              slot,
              start.seek.label,
              start.seek.key,
              env.exprs.compile(start.seek.value, scope),
              check,
              source,
              seekCovers(node, start.seek),
            ),
          )
        } else {
          if (node.labels.length > 0) {
            plan.push(`NodeByLabelScan(${name}:${node.labels.join(':')})`)
            steps.push(labelScanStep(slot, node.labels, check, source))
          } else {
            plan.push(`AllNodesScan(${name})`)
            steps.push(allNodesStep(slot, check, source))
          }
        }
      }
      flushFilters()
    }
    const expand = (relIndex: number, fromIndex: number, toIndex: number, leftward: boolean): void => {
      const rel = part.rels[relIndex] as RelPattern
      const toNode = part.nodes[toIndex] as NodePattern
      const kind: VarKind = rel.varLength ? 'relList' : 'rel'
      let relSlot: number
      let relBound = false
      const existingRel = rel.variable !== undefined ? scope.get(rel.variable) : undefined
      if (existingRel !== undefined && rel.varLength === undefined) {
        if (existingRel.kind !== 'rel' && existingRel.kind !== 'value') {
          env.report('VARIABLE_TYPE_CONFLICT', `variable '${rel.variable}' is not a relationship`, rel.start)
        }
        relSlot = existingRel.slot
        relBound = true
      } else if (existingRel !== undefined && existingRel.kind !== 'node' && existingRel.kind !== 'rel') {
        // A bound list of relationships: the variable-length pattern must follow exactly that list.
        relSlot = existingRel.slot
        relBound = true
      } else {
        if (existingRel !== undefined)
          env.report('VARIABLE_ALREADY_BOUND', `variable '${rel.variable}' is already defined`, rel.start)
        relSlot = bindNew(rel.variable, kind, rel.start).slot
      }
      relSlots[relIndex] = relSlot
      const relCheck = rel.props ? propCheck(env, rel.props, scope) : undefined
      const typeExpr = rel.typeExpr
      const existingTo = lookupNode(env, scope, toNode)
      const toCheck = nodeCheck(env, toNode, scope)
      const toSlot = existingTo?.slot ?? bindNew(toNode.variable, 'node', toNode.start).slot
      nodeSlots[toIndex] = toSlot
      const direction = leftward ? flip(rel.direction) : rel.direction
      const used = clauseRels.slice()
      clauseRels.push({ slot: relSlot, list: rel.varLength !== undefined })
      const spec: ExpandSpec = {
        from: nodeSlots[fromIndex] as number,
        rel: relSlot,
        relBound,
        to: toSlot,
        toBound: existingTo !== undefined,
        types: rel.types,
        typeExpr,
        direction,
        relCheck,
        toCheck,
        used,
      }
      if (rel.group && rel.varLength) {
        const min = rel.varLength.min ?? 1
        const max = rel.varLength.max ?? env.maxHops
        if (max > env.maxHops) throw budgetError('variable_length_hops', max, env.maxHops)
        const names = longGroupVariables(rel)
        for (const name of names)
          if (scope.has(name))
            env.report('VARIABLE_ALREADY_BOUND', `variable '${name}' is already defined`, rel.start)
        const inner = scope.copy()
        const lists = new Map(names.map((name) => [name, bindNew(name, 'value', rel.start).slot]))
        plan.push(`QuantifiedGroup(${rel.group.rels.length} hops *${min}..${max})`)
        steps.push(
          longGroupStep(
            env,
            rel,
            inner,
            {
              from: spec.from,
              to: toSlot,
              toBound: spec.toBound,
              toCheck,
              relList: relSlot,
              used,
              min,
              max,
              leftward,
            },
            lists,
            (node) => nodeCheck(env, node, inner),
            (r) => propCheck(env, r.props as Expr, inner),
          ),
        )
      } else if (rel.varLength) {
        const hop = compileHop(env, rel, scope, (node) => nodeCheck(env, node, scope))
        if (hop) spec.hop = hop
        const min = rel.varLength.min ?? 1
        const max = rel.varLength.max ?? env.maxHops
        if (max > env.maxHops) throw budgetError('variable_length_hops', max, env.maxHops)
        if (relBound) {
          plan.push(`FollowRelationshipList(${direction})`)
          steps.push(boundListStep(spec, min, max, leftward))
        } else {
          plan.push(`VarLengthExpand(${direction} *${min}..${max})`)
          steps.push(varExpandStep(spec, min, max, leftward))
        }
        bindGroupLists(rel, nodeSlots[Math.min(fromIndex, toIndex)] as number, relSlot)
      } else {
        plan.push(`Expand(${direction}${rel.types.length ? `:${rel.types.join('|')}` : ''})`)
        steps.push(expandStep(spec))
      }
      flushFilters()
    }
    for (let i = start.index; i < part.rels.length; i++) expand(i, i, i + 1, false)
    for (let i = start.index - 1; i >= 0; i--) expand(i, i + 1, i, true)
    if (part.variable !== undefined) {
      const { slot } = bindNew(part.variable, 'path', part.start)
      const kinds = part.rels.map((rel) => rel.varLength !== undefined)
      steps.push(pathStep(slot, nodeSlots.slice(), relSlots.slice(), kinds))
      plan.push(`ProjectPath(${part.variable})`)
      flushFilters()
    }
  }
  // Conjuncts that never became ready reference unknown variables: compiling reports them.
  for (const filter of pending) {
    const pred = env.exprs.compile(filter.expr, scope)
    steps.push((next) => (row, ctx, emit) => (truth(pred(row, ctx)) === true ? next(row, ctx, emit) : true))
  }
  let cont: Cont = options.countLoaded
    ? (row, ctx, emit) => {
        counter(ctx)
        return emit(row.slice())
      }
    : (row, _ctx, emit) => emit(row.slice())
  for (let i = steps.length - 1; i >= 0; i--) cont = (steps[i] as Step)(cont)
  const body = cont
  let matcher: Matcher = (row, ctx, emit) => body(row.slice(), ctx, emit)
  if (options.optional) {
    const inner = matcher
    matcher = (row, ctx, emit) => {
      let matched = false
      const go = inner(row, ctx, (out) => {
        matched = true
        return emit(out)
      })
      if (!go || matched) return go
      const out = row.slice()
      for (const slot of newSlots) out[slot] = null
      return emit(out)
    }
  }
  return { scope, matcher, newSlots, plan, resumable }
}

function isPatternVar(parts: PatternPart[], name: string): boolean {
  for (const part of parts) {
    if (part.variable === name) return true
    for (const node of part.nodes) if (node.variable === name) return true
    for (const rel of part.rels) {
      if (rel.variable === name) return true
      if (groupNodeVariables(rel).includes(name) || longGroupVariables(rel).includes(name)) return true
    }
  }
  return false
}

const flip = (direction: Direction): Direction =>
  direction === 'out' ? 'in' : direction === 'in' ? 'out' : 'both'

function lookupNode(env: MatchEnv, scope: Scope, node: NodePattern): Binding | undefined {
  if (node.variable === undefined) return undefined
  const binding = scope.get(node.variable)
  if (binding !== undefined && binding.kind !== 'node' && binding.kind !== 'value') {
    env.report('VARIABLE_TYPE_CONFLICT', `variable '${node.variable}' is not a node`, node.start)
  }
  return binding
}

/** A candidate shortest path judged by a parenthesised pattern's WHERE, its variables bound to that path. */
function compileAccept(
  env: MatchEnv,
  where: Expr,
  scope: Scope,
  relSlot: number,
  relList: boolean,
  pathSlot: number,
  lists: { left: number; right: number } | undefined,
): (nodes: number[], rels: number[], row: Row, ctx: ExecContext) => boolean {
  const predicate = env.exprs.compile(where, scope)
  return (nodes, rels, row, ctx) => {
    const relValues = rels.map((id) => new RelValue(id))
    row[relSlot] = relList ? relValues : (relValues[0] ?? null)
    if (pathSlot >= 0) row[pathSlot] = new PathValue(nodes.slice(), rels.slice())
    if (lists !== undefined) {
      const values = nodes.map((id) => new NodeValue(id))
      if (lists.left >= 0) row[lists.left] = values.slice(0, -1)
      if (lists.right >= 0) row[lists.right] = values.slice(1)
    }
    return truth(predicate(row, ctx)) === true
  }
}

/**
 * The seek is all the node pattern asks: one label, one property, and it is the seek's (`(n:L {key: v})`).
 * The node's check then compares nothing the index has not (see seekStep).
 */
function seekCovers(node: NodePattern, seek: NonNullable<StartChoice['seek']>): boolean {
  const props = node.props
  return (
    node.labels.length === 1 &&
    node.labelExpr === undefined &&
    (node.dynamicLabels?.length ?? 0) === 0 &&
    props?.kind === 'map' &&
    props.entries.length === 1 &&
    props.entries[0]?.[0] === seek.key &&
    props.entries[0]?.[1] === seek.value
  )
}

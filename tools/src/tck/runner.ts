import { existsSync, readFileSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'
import { AstBuilder, compile, GherkinClassicTokenMatcher, Parser } from '@cucumber/gherkin'
import { IdGenerator, type Pickle, type PickleStep } from '@cucumber/messages'
import { GraphCatalog, type GraphStore } from '@service/core'
import {
  bindParams,
  CypherEngine,
  type CypherOutcome,
  equals,
  outcomeOfError,
  type ProcedureDef,
  parseSignature,
  type Value,
} from '@service/core/cypher'
import { CONFORMANCE_BUDGETS, listFiles } from '../test-harness.js'
import { canonicalExpected, canonicalValue, parseParameter } from './notation.js'

export type ScenarioStatus = 'passed' | 'failed' | 'skipped'

/** `TCK_STREAM_PAGE=n`: a read that streams runs through its cursor in pages of n (the slicing against the TCK). */
const STREAM_PAGE = Number(process.env.TCK_STREAM_PAGE ?? 0)

async function execute(
  engine: CypherEngine,
  query: string,
  params: Record<string, unknown>,
): Promise<CypherOutcome> {
  if (!(STREAM_PAGE > 0)) return engine.execute({ query, mode: 'auto', params })
  const outcome = await engine.execute({ query, mode: 'auto', params, rows: 'stream' })
  const cursor = outcome.result.cursor
  if (cursor === undefined) return outcome
  const rows: Value[][] = []
  try {
    while (cursor.hasMore) cursor.pullValues(STREAM_PAGE, (row) => rows.push(row))
  } catch (error) {
    return outcomeOfError(error)
  }
  return { ...outcome, raw: { columns: outcome.result.data?.columns ?? [], rows, graph: cursor.graph } }
}

export interface ScenarioResult {
  feature: string
  /** Feature directory relative to the features root, e.g. `clauses/match`. */
  area: string
  name: string
  status: ScenarioStatus
  reason?: string
}

/** The area the team targets (85%): these directories, with `clauses/match` limited to Match1-3, 7, 8. */
export const TARGET_AREAS = [
  'clauses/match',
  'clauses/match-where',
  'clauses/create',
  'clauses/merge',
  'clauses/set',
  'clauses/remove',
  'clauses/delete',
  'clauses/return',
  'clauses/return-orderby',
  'clauses/return-skip-limit',
  'clauses/with',
  'clauses/with-where',
  'clauses/with-skip-limit',
  'clauses/with-orderBy',
  'clauses/unwind',
  'expressions/aggregation',
  'expressions/null',
  'expressions/conditional',
  'expressions/comparison',
  'expressions/string',
  'expressions/list',
  'expressions/map',
  'expressions/literals',
  'expressions/boolean',
]
const TARGET_MATCH_FILES = new Set([
  'Match1.feature',
  'Match2.feature',
  'Match3.feature',
  'Match7.feature',
  'Match8.feature',
])

export function isTargetFeature(root: string, file: string): boolean {
  const area = relative(root, dirname(file)).split('\\').join('/')
  if (!TARGET_AREAS.includes(area)) return false
  return area !== 'clauses/match' || TARGET_MATCH_FILES.has(basename(file))
}

export function listFeatures(root: string): string[] {
  return listFiles(root, '.feature')
}

/**
 * TCK error classes for our codes. An expected error passes when one is raised and either its class
 * or its detail (as UPPER_SNAKE) matches ours; the phase (compile/runtime) is not compared, since
 * we detect some errors earlier or later than the reference implementation.
 */
const ERROR_CLASS: Record<string, string> = {
  INVALID_ARGUMENT_TYPE: 'TypeError',
  INVALID_PROPERTY_TYPE: 'TypeError',
  DELETED_ENTITY_ACCESS: 'EntityNotFound',
  DELETE_CONNECTED_NODE: 'ConstraintVerificationFailed',
  PARAMETER_MISSING: 'ParameterMissing',
  NUMBER_OUT_OF_RANGE: 'ArgumentError',
  NEGATIVE_INTEGER_ARGUMENT: 'ArgumentError',
  INVALID_ARGUMENT_VALUE: 'ArgumentError',
  MERGE_NULL_PROPERTY: 'SemanticError',
  DIVISION_BY_ZERO: 'ArithmeticError',
  INTEGER_OVERFLOW: 'ArithmeticError',
}

const snake = (detail: string): string => detail.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()

function errorMatches(outcome: CypherOutcome, expectedClass: string, detail: string): string | undefined {
  const result = outcome.result
  if (result.status === 'Success') return `expected ${expectedClass} (${detail}) but the query succeeded`
  const code = result.validation_errors[0]?.code ?? ''
  const cls = result.status === 'ValidationFailed' ? 'SyntaxError' : (ERROR_CLASS[code] ?? 'RuntimeError')
  if (cls === expectedClass || code === snake(detail) || detail === '*') return undefined
  return `expected ${expectedClass} (${detail}) but got ${code}: ${result.validation_errors[0]?.message ?? ''}`
}

interface Snapshot {
  nodes: Set<string>
  rels: Set<string>
  labels: Set<string>
  props: Set<string>
}

function snapshot(store: GraphStore): Snapshot {
  const snap: Snapshot = { nodes: new Set(), rels: new Set(), labels: new Set(), props: new Set() }
  const opts = { unorderedLists: false }
  for (const id of store.allNodeIds()) {
    snap.nodes.add(`${id}`)
    const node = store.node(id)
    if (!node) continue
    // The TCK counts label names in use, not (node, label) pairs.
    for (const label of node.labels) snap.labels.add(store.names.name(label))
    for (const [key, value] of node.props)
      snap.props.add(`n${id}.${key}=${canonicalValue(value, store, opts)}`)
  }
  for (const id of store.allRelIds()) {
    snap.rels.add(`${id}`)
    for (const [key, value] of store.relProps(id) ?? [])
      snap.props.add(`r${id}.${key}=${canonicalValue(value, store, opts)}`)
  }
  return snap
}

function diff(before: Snapshot, after: Snapshot): Record<string, number> {
  const count = (a: Set<string>, b: Set<string>): number => {
    let n = 0
    for (const item of a) if (!b.has(item)) n++
    return n
  }
  return {
    '+nodes': count(after.nodes, before.nodes),
    '-nodes': count(before.nodes, after.nodes),
    '+relationships': count(after.rels, before.rels),
    '-relationships': count(before.rels, after.rels),
    '+labels': count(after.labels, before.labels),
    '-labels': count(before.labels, after.labels),
    '+properties': count(after.props, before.props),
    '-properties': count(before.props, after.props),
  }
}

class Skip extends Error {}

function table(step: PickleStep): string[][] {
  return step.argument?.dataTable?.rows.map((row) => row.cells.map((cell) => cell.value)) ?? []
}

function docString(step: PickleStep): string {
  const content = step.argument?.docString?.content
  if (content === undefined) throw new Skip(`step '${step.text}' has no query`)
  return content
}

/** Runs one scenario on a fresh graph; returns undefined on success or the failure reason. */
async function runPickle(pickle: Pickle, graphsDir: string): Promise<string | undefined> {
  const catalog = new GraphCatalog()
  const engine = new CypherEngine(catalog, {
    budgets: CONFORMANCE_BUDGETS,
    ...(STREAM_PAGE > 0 ? { streamPrefetchRows: 0 } : {}),
  })
  const store = catalog.workspace()
  let params: Record<string, unknown> = {}
  let outcome: CypherOutcome | undefined
  let before: Snapshot | undefined
  let after: Snapshot | undefined
  for (const step of pickle.steps) {
    const text = step.text.trim()
    if (text === 'an empty graph' || text === 'any graph') continue
    let match = /^the (.+) graph$/.exec(text)
    if (match) {
      const file = join(graphsDir, match[1] as string, `${match[1]}.cypher`)
      if (!existsSync(file)) throw new Skip(`graph ${match[1]} not found`)
      const setup = await engine.execute({ query: readFileSync(file, 'utf8'), mode: 'write' })
      if (setup.result.status !== 'Success')
        return `graph setup failed: ${setup.result.validation_errors[0]?.message}`
      continue
    }
    match = /^there exists a procedure (.+)$/.exec(text)
    if (match) {
      engine.registerProcedure(tableProcedure(match[1] as string, table(step), engine.budgets.maxListSize))
      continue
    }
    if (text === 'having executed:') {
      const setup = await engine.execute({ query: docString(step), mode: 'write' })
      if (setup.result.status !== 'Success') {
        return `setup failed: ${setup.result.validation_errors[0]?.code} ${setup.result.validation_errors[0]?.message}`
      }
      continue
    }
    if (text === 'parameters are:') {
      for (const [name, value] of table(step)) params[name as string] = parseParameter(value as string)
      continue
    }
    if (text === 'executing query:' || text === 'executing control query:') {
      before = snapshot(store)
      outcome = await execute(engine, docString(step), params)
      after = snapshot(store)
      params = {}
      continue
    }
    if (outcome === undefined) throw new Skip(`unsupported step '${text}'`)
    match = /^an? (\w+) should be raised at (compile time|runtime|any time): (.+)$/.exec(text)
    if (match) {
      const failure = errorMatches(outcome, match[1] as string, (match[3] as string).trim())
      if (failure) return failure
      continue
    }
    if (text === 'the result should be empty') {
      if (outcome.result.status !== 'Success') return describeFailure(outcome)
      if ((outcome.raw?.rows.length ?? 0) > 0) return `expected no rows, got ${outcome.raw?.rows.length}`
      continue
    }
    match = /^the result should be(, in order| \(ignoring element order for lists\)|, in any order)?:$/.exec(
      text,
    )
    if (match) {
      const failure = compareResult(
        outcome,
        table(step),
        match[1] === ', in order',
        match[1]?.includes('ignoring') ?? false,
      )
      if (failure) return failure
      continue
    }
    if (text === 'no side effects' || text === 'the side effects should be:') {
      if (outcome.result.status !== 'Success') return describeFailure(outcome)
      const actual = diff(before as Snapshot, after as Snapshot)
      const expected: Record<string, number> = {}
      for (const [key, value] of table(step)) expected[key as string] = Number(value)
      for (const key of Object.keys(actual)) {
        if ((actual[key] ?? 0) !== (expected[key] ?? 0)) {
          return `side effects: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`
        }
      }
      continue
    }
    throw new Skip(`unsupported step '${text}'`)
  }
  return undefined
}

/**
 * A TCK test procedure: its table lists input values then output values; a call yields the outputs of the
 * rows whose inputs equal its arguments (null matching null), in table order.
 */
function tableProcedure(signature: string, rows: string[][], maxListSize: number): ProcedureDef {
  const { name, params, outputs } = parseSignature(signature)
  const header = rows[0] ?? []
  const values = rows.slice(1).map((row) => {
    const bound = bindParams(
      Object.fromEntries(row.map((cell, i) => [`${i}`, parseParameter(cell)])),
      maxListSize,
    )
    return header.map((_, i) => bound.get(`${i}`) ?? null)
  })
  return {
    name,
    description: 'TCK test procedure',
    mode: 'READ',
    params,
    outputs,
    *run(args) {
      for (const row of values) {
        const inputs = row.slice(0, params.length)
        if (inputs.every((value, i) => sameValue(value, args[i] ?? null))) yield row.slice(params.length)
      }
    },
  }
}

const sameValue = (a: Value, b: Value): boolean =>
  a === null || b === null ? a === b : equals(a, b) === true

function describeFailure(outcome: CypherOutcome): string {
  const error = outcome.result.validation_errors[0]
  return `query failed: ${outcome.result.status} ${error?.code}: ${error?.message}`
}

function compareResult(
  outcome: CypherOutcome,
  rows: string[][],
  ordered: boolean,
  unorderedLists: boolean,
): string | undefined {
  if (outcome.result.status !== 'Success' || outcome.raw === undefined) return describeFailure(outcome)
  const header = rows[0] ?? []
  const raw = outcome.raw
  const indexes = header.map((name) => raw.columns.indexOf(name))
  if (indexes.some((i) => i < 0) || header.length !== raw.columns.length) {
    return `columns: expected ${JSON.stringify(header)}, got ${JSON.stringify(raw.columns)}`
  }
  const options = { unorderedLists }
  let expected: string[]
  try {
    expected = rows.slice(1).map((row) => row.map((cell) => canonicalExpected(cell, options)).join(' | '))
  } catch (error) {
    throw new Skip(`cannot parse expected values: ${String(error)}`)
  }
  const actual = raw.rows.map((row) =>
    indexes.map((i) => canonicalValue(row[i] ?? null, raw.graph, options)).join(' | '),
  )
  const e = ordered ? expected : expected.slice().sort()
  const a = ordered ? actual : actual.slice().sort()
  if (e.length === a.length && e.every((row, i) => row === a[i])) return undefined
  return `rows differ:\n  expected ${JSON.stringify(e)}\n  actual   ${JSON.stringify(a)}`
}

export function loadPickles(file: string): readonly Pickle[] {
  const newId = IdGenerator.incrementing()
  const parser = new Parser(new AstBuilder(newId), new GherkinClassicTokenMatcher())
  const document = parser.parse(readFileSync(file, 'utf8'))
  return compile(document, file, newId)
}

/** Runs every scenario of the given feature files. */
export async function runFeatures(root: string, files: string[]): Promise<ScenarioResult[]> {
  const graphsDir = join(root, '..', 'graphs')
  const results: ScenarioResult[] = []
  for (const file of files) {
    const area = relative(root, dirname(file)).split('\\').join('/')
    const feature = basename(file, '.feature')
    for (const pickle of loadPickles(file)) {
      let status: ScenarioStatus = 'passed'
      let reason: string | undefined
      try {
        reason = await runPickle(pickle, graphsDir)
        if (reason !== undefined) status = 'failed'
      } catch (error) {
        if (error instanceof Skip) {
          status = 'skipped'
          reason = error.message
        } else {
          status = 'failed'
          reason = `crash: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`
        }
      }
      results.push({ feature, area, name: pickle.name, status, ...(reason !== undefined ? { reason } : {}) })
    }
  }
  return results
}

export interface Tally {
  passed: number
  failed: number
  skipped: number
}

export function tally(results: readonly ScenarioResult[]): Tally {
  const out: Tally = { passed: 0, failed: 0, skipped: 0 }
  for (const result of results) out[result.status]++
  return out
}

/**
 * Checks a value against a memory schema and, when it does not conform, throws one error that names the field
 * at fault (`input.limits.max_items is 0; it must be from 1 to 10000`). A union's own error says nothing
 * useful, so the branch the caller meant (by its discriminating literal, or the non-null branch of a nullable
 * field) is checked on its own and its error reported instead.
 */
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import type { EngineError } from '../errors.js'
import { invalid, memoryError } from './errors.js'

type Node = Record<string, unknown>
interface Problem {
  keyword: string
  schemaPath: string
  instancePath: string
  params: Record<string, unknown>
}

const compiled = new WeakMap<TSchema, ReturnType<typeof Compile>>()
function checker(schema: TSchema) {
  let check = compiled.get(schema)
  if (!check) {
    check = Compile(schema)
    compiled.set(schema, check)
  }
  return check
}

const isObject = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Throws the first problem of `value` against `schema` as a memory error; `path` names the value. */
export function assertSchema(schema: TSchema, value: unknown, path: string): void {
  const check = checker(schema)
  if (check.Check(value)) return
  throw explain(schema, value, path, [...check.Errors(value)] as unknown as Problem[])
}

// A malformed shape is reported before a number out of its range (INVALID_BUDGET), so the order is by keyword.
const PRIORITY = ['additionalProperties', 'required', 'anyOf']

function explain(schema: TSchema, value: unknown, path: string, problems: Problem[]): EngineError {
  const relevant = problems.filter((p) => p.keyword !== 'boolean' && !p.schemaPath.includes('/anyOf/'))
  relevant.sort((a, b) => rank(a) - rank(b))
  const first = relevant[0]
  if (!first) return unionFailure(schema, value, path, problems)
  const at = path + first.instancePath.split('/').slice(1).map(segment).join('')
  const node = pointer(schema, first.schemaPath)
  const found = pointer(value, first.instancePath)
  switch (first.keyword) {
    case 'additionalProperties':
      return invalid(
        `${at}.${(first.params.additionalProperties as string[])[0]} is not a field of this contract`,
      )
    case 'required':
      return invalid(`${at}.${(first.params.requiredProperties as string[])[0]} is required`)
    case 'anyOf':
      return union(node, found, at)
    default:
      return leaf(first.keyword, node, found, at)
  }
}

function rank(p: Problem): number {
  const i = PRIORITY.indexOf(p.keyword)
  if (i >= 0) return i
  return p.keyword === 'minimum' || p.keyword === 'maximum' ? PRIORITY.length + 1 : PRIORITY.length
}

const segment = (s: string) => (/^\d+$/.test(s) ? `[${s}]` : `.${s.replace(/~1/g, '/').replace(/~0/g, '~')}`)

function pointer(root: unknown, path: string): unknown {
  let at = root
  for (const raw of path.replace(/^#/, '').split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    at = isObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined
  }
  return at
}

/**
 * Every problem lies inside the branches of a union (TypeBox reports no error for the union itself): explain it
 * from the union's place, which a problem at a branch's root (`…/anyOf/N`) names.
 */
function unionFailure(schema: TSchema, value: unknown, path: string, problems: Problem[]): EngineError {
  const atBranch = problems.find((p) => /\/anyOf\/\d+$/.test(p.schemaPath))
  if (!atBranch) return invalid(`${path} does not match its schema`)
  const unionPath = atBranch.schemaPath.replace(/\/anyOf\/\d+$/, '')
  const at = path + atBranch.instancePath.split('/').slice(1).map(segment).join('')
  return union(pointer(schema, unionPath), pointer(value, atBranch.instancePath), at)
}

/** The branch the caller meant, checked alone; or the list of allowed literals. */
function union(node: unknown, value: unknown, at: string): EngineError {
  const branches = (isObject(node) ? (node.anyOf as Node[]) : []) ?? []
  const literals = branches.filter((b) => 'const' in b).map((b) => String(b.const))
  if (literals.length === branches.length && literals.length > 0)
    return invalid(`${at} must be one of ${literals.join(', ')}`)
  const nonNull = branches.filter((b) => b.type !== 'null')
  if (nonNull.length === 1) return explainBranch(nonNull[0] as TSchema, value, at)
  const discriminator = discriminatorOf(nonNull)
  if (discriminator && isObject(value)) {
    const literal = (b: Node) => ((b.properties as Node)[discriminator] as Node).const
    const meant = nonNull.find((b) => literal(b) === value[discriminator])
    if (meant) return explainBranch(meant as TSchema, value, at)
    const names = nonNull.map((b) => String(literal(b)))
    return invalid(`${at}.${discriminator} must be one of ${names.join(', ')}`)
  }
  return invalid(`${at} must be ${nonNull.map((b) => b.type).join(' or ')}`)
}

function explainBranch(branch: TSchema, value: unknown, at: string): EngineError {
  const check = checker(branch)
  return explain(branch, value, at, [...check.Errors(value)] as unknown as Problem[])
}

function discriminatorOf(branches: Node[]): string | null {
  const first = branches[0]?.properties
  if (!isObject(first)) return null
  for (const key of Object.keys(first))
    if (
      branches.every(
        (b) => isObject(b.properties) && isObject(b.properties[key]) && 'const' in b.properties[key],
      )
    )
      return key
  return null
}

const ARTICLE: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
}

function leaf(keyword: string, node: unknown, value: unknown, at: string): EngineError {
  const n = isObject(node) ? node : {}
  switch (keyword) {
    case 'minLength':
    case 'pattern':
      return n.maxLength !== undefined
        ? invalid(`${at} must be 1..${n.maxLength} non-blank characters`)
        : invalid(`${at} must be a non-empty string`)
    case 'maxLength':
      return invalid(`${at} must be 1..${n.maxLength} characters`)
    case 'format':
      return invalid(`${at} must be an RFC 3339 timestamp`)
    case 'minItems':
    case 'maxItems':
      return invalid(`${at} must list ${n.minItems ?? 0} to ${n.maxItems ?? 'any number of'} items`)
    case 'const':
      return invalid(`${at} must be '${String(n.const)}'`)
    case 'minimum':
    case 'maximum':
      return range(n, value, at)
    default: {
      if (n.type === 'array' && isObject(n.items) && n.items.type === 'string')
        return invalid(`${at} must be an array of strings`)
      return invalid(`${at} must be ${ARTICLE[String(n.type)] ?? 'of another type'}`)
    }
  }
}

/** Recall limits out of range are a budget problem; other numbers out of range a malformed request. */
function range(n: Node, value: unknown, at: string): EngineError {
  if (at.includes('.limits.')) {
    const max = n.maximum === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${n.maximum}`
    return memoryError('INVALID_BUDGET', `${at} is ${String(value)}; it must be from ${n.minimum}${max}`)
  }
  if (n.type === 'integer' && n.minimum === 1 && n.maximum === undefined)
    return invalid(`${at} must be a positive integer`)
  return invalid(`${at} must be a number from ${n.minimum} to ${n.maximum}`)
}

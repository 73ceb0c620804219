import { typeError } from '../errors.js'
import type { ExecContext } from '../executor/context.js'
import { NodeValue, PathValue, RelValue, typeName, type Value } from '../values.js'
import type { FunctionInfo, ProcedureField, ProcedureHost, ProcedureMode, ProcedureSummary } from './host.js'

/**
 * Procedures: named, typed, classified, listed. A procedure yields rows of values in the order of its
 * declared outputs; the CALL clause binds the ones a query YIELDs. Every row a procedure yields counts
 * against the loaded-records budget, and a procedure that walks the graph ticks the clock as it goes.
 */

export interface ProcedureContext extends ExecContext {
  readonly host: ProcedureHost
}

export type { FunctionInfo, ProcedureField, ProcedureHost, ProcedureMode, ProcedureSummary }

export interface ProcedureDef extends ProcedureSummary {
  /** Case as Neo4j spells it (`db.labels`); lookup is exact, as in Neo4j. */
  name: string
  description: string
  mode: ProcedureMode
  params: ProcedureField[]
  outputs: ProcedureField[]
  /** Columns a standalone call shows without YIELD (SHOW commands show a subset); all outputs when absent. */
  defaultOutputs?: string[]
  /** Internal procedures (the SHOW commands) are not listed and cannot be CALLed by name. */
  internal?: boolean
  run(args: Value[], ctx: ProcedureContext): Iterable<Value[]>
}

/** The procedures of one engine: the built-ins, plus any a test or a plugin registers. */
export class ProcedureRegistry {
  private readonly byName = new Map<string, ProcedureDef>()
  private functionList: () => FunctionInfo[] = () => []

  constructor(defs: Iterable<ProcedureDef> = []) {
    for (const def of defs) this.register(def)
  }

  register(def: ProcedureDef): void {
    this.byName.set(def.internal ? ` ${def.name}` : def.name, def)
  }

  get(name: string): ProcedureDef | undefined {
    return this.byName.get(name)
  }

  /** Listed procedures, by name. */
  list(): ProcedureDef[] {
    return [...this.byName.values()].filter((def) => !def.internal).sort((a, b) => (a.name < b.name ? -1 : 1))
  }

  /** Where SHOW FUNCTIONS finds the function catalog (set by the engine, which owns the function table). */
  setFunctionCatalog(list: () => FunctionInfo[]): void {
    this.functionList = list
  }

  functions(): FunctionInfo[] {
    return this.functionList()
  }
}

/** `name :: TYPE?` list as Neo4j prints a signature. */
export function signatureOf(def: ProcedureSummary): string {
  const fields = (list: ProcedureField[]) => list.map((f) => `${f.name} :: ${f.type}`).join(', ')
  return `${def.name}(${fields(def.params)}) :: (${fields(def.outputs)})`
}

/** True when `value` may be passed where `type` is declared (null always may: Neo4j types are nullable). */
export function assignable(value: Value, type: string): boolean {
  if (value === null) return true
  const base = type
    .replace(/\?$/, '')
    .replace(/ NOT NULL$/, '')
    .toUpperCase()
  if (base === 'ANY') return true
  if (base.startsWith('LIST')) {
    if (!Array.isArray(value)) return false
    const inner = /^LIST\s*(?:OF\s+|<)\s*([^>]+)>?$/.exec(base)?.[1]
    return inner === undefined || value.every((item) => assignable(item, inner))
  }
  switch (base) {
    case 'STRING':
      return typeof value === 'string'
    case 'INTEGER':
      return typeof value === 'bigint'
    case 'FLOAT':
      return typeof value === 'number' || typeof value === 'bigint'
    case 'NUMBER':
      return typeof value === 'number' || typeof value === 'bigint'
    case 'BOOLEAN':
      return typeof value === 'boolean'
    case 'MAP':
      return value instanceof Map
    case 'NODE':
      return value instanceof NodeValue
    case 'RELATIONSHIP':
      return value instanceof RelValue
    case 'PATH':
      return value instanceof PathValue
    default:
      return true
  }
}

/** An argument converted to its declared type (an INTEGER passed as FLOAT becomes a float), or a type error. */
export function coerceArgument(def: ProcedureDef, index: number, value: Value): Value {
  const param = def.params[index] as ProcedureField
  if (!assignable(value, param.type)) {
    throw typeError(
      `${def.name}() argument '${param.name}' expects ${param.type.replace(/\?$/, '')}, got ${typeName(value)}`,
    )
  }
  if (typeof value === 'bigint' && /^FLOAT\??$/i.test(param.type)) return Number(value)
  return value
}

/** Parses `ns.name(a :: T?, …) :: (out :: T?, …)`: the signature notation of Neo4j (and of the TCK). */
export function parseSignature(text: string): Pick<ProcedureDef, 'name' | 'params' | 'outputs'> {
  const match = /^\s*([\w.]+)\s*\(([^)]*)\)\s*::\s*\(([^)]*)\)\s*:?\s*$/.exec(text)
  if (match === null) throw new Error(`not a procedure signature: ${text}`)
  const fields = (list: string): ProcedureField[] =>
    list
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')
      .map((item) => {
        const [name, type] = item.split('::').map((part) => part.trim())
        if (!name || !type) throw new Error(`not a signature field: ${item}`)
        return { name, type }
      })
  return { name: match[1] as string, params: fields(match[2] as string), outputs: fields(match[3] as string) }
}

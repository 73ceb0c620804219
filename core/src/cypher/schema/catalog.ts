import { createHash } from 'node:crypto'
import type { CommitOp } from '../../graph/commit.js'
import type { GraphReader, PropertyValue } from '../../graph/types.js'
import type { SchemaCommand } from '../ast.js'
import { CypherError } from '../errors.js'
import type { SchemaRule } from '../procedures/host.js'
import { hasType } from '../type-predicate.js'
import { equals, type Value } from '../values.js'

export type { SchemaRule }

type SchemaRecord =
  | { workspace: string; op: 'create'; rule: SchemaRule }
  | { workspace: string; op: 'drop'; name: string }

const RECORD_KIND = 'cypher-schema'

const schemaError = (code: string, message: string) => new CypherError(code, message, 'runtime')

/**
 * The indexes and constraints declared per workspace. The store indexes label and property lookups on
 * demand, so a declared index needs no build: it is recorded (durably, through the journal) and listed.
 * Constraints are enforced: every write is checked before it publishes (`checkCommit`), and creating one
 * checks the data already there. Shaped as the kernel's journaled state (WAL records and checkpoint lines).
 */
export class SchemaCatalog {
  readonly recordKinds = [RECORD_KIND] as const
  readonly lineKinds = [RECORD_KIND] as const
  private readonly byWorkspace = new Map<string, Map<string, SchemaRule>>()
  private nextId = 2

  constructor(private readonly journal?: (kind: string, body: unknown) => Promise<void>) {}

  rules(workspace: string): SchemaRule[] {
    return [...(this.byWorkspace.get(workspace)?.values() ?? [])].sort((a, b) => a.id - b.id)
  }

  /** Runs a CREATE/DROP command; resolves once it is durable. Returns whether the schema changed. */
  async execute(
    workspace: string,
    command: SchemaCommand,
    options: Record<string, unknown>,
    graph: GraphReader,
  ): Promise<boolean> {
    const rules = this.byWorkspace.get(workspace) ?? new Map<string, SchemaRule>()
    let record: SchemaRecord
    if (command.action === 'drop') {
      const rule = rules.get(command.name)
      if (rule === undefined || rule.kind !== command.what) {
        if (command.ifExists) return false
        throw schemaError(
          command.what === 'index' ? 'INDEX_DROP_FAILED' : 'CONSTRAINT_DROP_FAILED',
          `there is no ${command.what} named '${command.name}'`,
        )
      }
      record = { workspace, op: 'drop', name: command.name }
    } else {
      if (command.entityType === 'RELATIONSHIP' && command.what === 'constraint')
        throw new CypherError(
          'UNSUPPORTED_CYPHER_FEATURE',
          'relationship constraints are not supported',
          'limit',
        )
      const shape = {
        kind: command.what,
        type: command.type,
        entityType: command.entityType,
        labelsOrTypes: command.labelsOrTypes,
        properties: command.properties,
        ...(command.propertyType ? { propertyType: command.propertyType } : {}),
      }
      const name =
        command.name ??
        `${command.what}_${createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 8)}`
      const equivalent = [...rules.values()].find((rule) => sameShape(rule, shape))
      if (rules.has(name) || equivalent !== undefined) {
        if (command.ifNotExists) return false
        throw schemaError(
          'EQUIVALENT_SCHEMA_RULE_ALREADY_EXISTS',
          rules.has(name)
            ? `an index or constraint named '${name}' already exists`
            : `an equivalent ${command.what} already exists: '${equivalent?.name}'`,
        )
      }
      const rule: SchemaRule = { id: this.nextId, name, ...shape, options }
      if (rule.kind === 'constraint') checkExisting(rule, graph)
      record = { workspace, op: 'create', rule }
    }
    this.applyRecord(RECORD_KIND, record)
    await this.journal?.(RECORD_KIND, record)
    return true
  }

  /** Refuses a write that would break a constraint of its workspace (called between prepare and publish). */
  checkCommit(workspace: string, graph: GraphReader, ops: readonly CommitOp[]): void {
    // Most workspaces declare nothing: no list is built for a commit then.
    if (!this.byWorkspace.get(workspace)?.size) return
    const constraints = this.rules(workspace).filter((rule) => rule.kind === 'constraint')
    if (constraints.length === 0) return
    const touched = new Set<number>()
    for (const op of ops) {
      if (
        op.op === 'createNode' ||
        op.op === 'addLabel' ||
        op.op === 'setNodeProperty' ||
        op.op === 'removeNodeProperty'
      )
        touched.add(op.id)
    }
    for (const id of touched) {
      const node = graph.node(id)
      if (node === undefined) continue
      const labels = node.labels.map((label) => graph.names.name(label))
      for (const rule of constraints) {
        if (!rule.labelsOrTypes.some((label) => labels.includes(label))) continue
        const violation = violates(rule, graph, id)
        if (violation !== undefined) throw schemaError('CONSTRAINT_VALIDATION_FAILED', violation)
      }
    }
  }

  applyRecord(_kind: string, body: unknown): void {
    const record = body as SchemaRecord
    let rules = this.byWorkspace.get(record.workspace)
    if (rules === undefined) {
      rules = new Map()
      this.byWorkspace.set(record.workspace, rules)
    }
    if (record.op === 'drop') rules.delete(record.name)
    else {
      rules.set(record.rule.name, record.rule)
      this.nextId = Math.max(this.nextId, record.rule.id + 1)
    }
  }

  loadLine(line: { kind: string }): void {
    const { workspace, rule } = line as unknown as { workspace: string; rule: SchemaRule }
    this.applyRecord(RECORD_KIND, { workspace, op: 'create', rule })
  }

  *imageLines(): Iterable<{ kind: string }> {
    for (const [workspace, rules] of this.byWorkspace)
      for (const rule of rules.values()) yield { kind: RECORD_KIND, workspace, rule } as { kind: string }
  }

  reset(): void {
    this.byWorkspace.clear()
    this.nextId = 2
  }
}

function sameShape(rule: SchemaRule, shape: Omit<SchemaRule, 'id' | 'name' | 'options'>): boolean {
  return (
    rule.kind === shape.kind &&
    rule.type === shape.type &&
    rule.entityType === shape.entityType &&
    rule.labelsOrTypes.join('\u0000') === shape.labelsOrTypes.join('\u0000') &&
    rule.properties.join('\u0000') === shape.properties.join('\u0000')
  )
}

const requiresAll = (rule: SchemaRule) => rule.type === 'NODE_KEY' || rule.type === 'NODE_PROPERTY_EXISTENCE'
const isUnique = (rule: SchemaRule) => rule.type === 'UNIQUENESS' || rule.type === 'NODE_KEY'

/** Why node `id` breaks `rule`, or undefined. */
function violates(rule: SchemaRule, graph: GraphReader, id: number): string | undefined {
  const node = graph.node(id)
  if (node === undefined) return undefined
  const values: (PropertyValue | undefined)[] = rule.properties.map((key) => {
    const keyId = graph.names.lookup(key)
    return keyId < 0 ? undefined : node.props.get(keyId)
  })
  const label = rule.labelsOrTypes[0] as string
  if (requiresAll(rule) && values.some((value) => value === undefined))
    return `node with label '${label}' must have the properties ${rule.properties.map((p) => `'${p}'`).join(', ')} (constraint '${rule.name}')`
  if (rule.type === 'NODE_PROPERTY_TYPE') {
    const value = values[0]
    if (value !== undefined && !hasType(value as Value, rule.propertyType ?? 'ANY'))
      return `property '${rule.properties[0]}' of a node with label '${label}' must be of type ${rule.propertyType} (constraint '${rule.name}')`
  }
  if (!isUnique(rule) || values.some((value) => value === undefined)) return undefined
  const labelId = graph.names.lookup(label)
  const keyId = graph.names.lookup(rule.properties[0] as string)
  for (const other of graph.propertyNodeIds(labelId, keyId, values[0] as PropertyValue)) {
    if (other === id) continue
    const record = graph.node(other)
    if (record === undefined) continue
    const same = rule.properties.every((key, i) => {
      const v = record.props.get(graph.names.lookup(key))
      return v !== undefined && equals(v as Value, values[i] as Value) === true
    })
    if (same)
      return `node ${other} already has label '${label}' and ${rule.properties.map((p, i) => `${p} = ${JSON.stringify(String(values[i]))}`).join(', ')} (constraint '${rule.name}')`
  }
  return undefined
}

/** A new constraint must hold for the data already there. */
function checkExisting(rule: SchemaRule, graph: GraphReader): void {
  const labelId = graph.names.lookup(rule.labelsOrTypes[0] as string)
  if (labelId < 0) return
  for (const id of graph.labelNodeIds(labelId)) {
    const violation = violates(rule, graph, id)
    if (violation !== undefined)
      throw schemaError('CONSTRAINT_CREATION_FAILED', `cannot create constraint: ${violation}`)
  }
}

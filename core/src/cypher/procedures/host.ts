// What procedures reach beyond the graph, as plain shapes: the execution context refers to this file, so it
// imports nothing (type imports count toward import cycles).

export interface ProcedureField {
  name: string
  /** Neo4j type name: `STRING`, `INTEGER`, `FLOAT`, `NUMBER`, `BOOLEAN`, `MAP`, `LIST<STRING>`, `NODE`, `ANY`, … */
  type: string
  /** A parameter with a default (a Cypher value) may be left out of an explicit argument list. */
  default?: unknown
}

/** Neo4j's procedure modes: READ never changes the graph; WRITE does (the query then runs as a write). */
export type ProcedureMode = 'READ' | 'WRITE' | 'SCHEMA' | 'DBMS'

/** A procedure as listings show it. */
export interface ProcedureSummary {
  name: string
  description: string
  mode: ProcedureMode
  params: ProcedureField[]
  outputs: ProcedureField[]
}

export interface FunctionInfo {
  name: string
  category: string
  description: string
  signature: string
  aggregating: boolean
}

/** An index or constraint as SHOW lists it; constraints that need one own a RANGE index of the same name. */
export interface SchemaRule {
  id: number
  name: string
  kind: 'index' | 'constraint'
  type: string
  entityType: 'NODE' | 'RELATIONSHIP'
  labelsOrTypes: string[]
  properties: string[]
  propertyType?: string
  options: Record<string, unknown>
}

export interface ProcedureHost {
  /** The workspace the query runs in. */
  readonly workspaceId: string
  workspaceIds(): string[]
  /** Listed procedures, by name. */
  procedures(): ProcedureSummary[]
  /** The function catalog. */
  functions(): FunctionInfo[]
  /** Declared indexes and constraints of the workspace. */
  schemaRules(): SchemaRule[]
}

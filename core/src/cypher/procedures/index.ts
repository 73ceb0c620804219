import { APOC_META_PROCEDURES } from './apoc-meta.js'
import { APOC_NEIGHBOR_PROCEDURES } from './apoc-neighbors.js'
import { APOC_WRITE_PROCEDURES } from './apoc-write.js'
import { DB_PROCEDURES } from './db.js'
import { type ProcedureDef, ProcedureRegistry } from './registry.js'
import { SHOW_PROCEDURES } from './show.js'

export const BUILTIN_PROCEDURES: readonly ProcedureDef[] = [
  ...DB_PROCEDURES,
  ...SHOW_PROCEDURES,
  ...APOC_META_PROCEDURES,
  ...APOC_WRITE_PROCEDURES,
  ...APOC_NEIGHBOR_PROCEDURES,
]

/** A registry holding the built-in procedures; engines get one each, so tests can add their own. */
export const builtinRegistry = (): ProcedureRegistry => new ProcedureRegistry(BUILTIN_PROCEDURES)

export {
  type FunctionInfo,
  type ProcedureContext,
  type ProcedureDef,
  type ProcedureField,
  type ProcedureHost,
  type ProcedureMode,
  ProcedureRegistry,
  parseSignature,
  signatureOf,
} from './registry.js'

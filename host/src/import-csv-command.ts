import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { DEFAULT_BAD_TOLERANCE, EngineError, type InputGroup, importCsv } from '@service/core'
import { ExitCode } from './exit-codes.js'
import { progressBar } from './progress-bar.js'

export interface ImportCsvArgs {
  nodes: string[]
  relationships: string[]
  storageDir?: string | undefined
  delimiter?: string | undefined
  arrayDelimiter?: string | undefined
  quote?: string | undefined
  report?: string | undefined
  badTolerance?: string | undefined
  idType?: string | undefined
}

/** Refusals the operator fixes by changing the command or the input (exit 2). */
const CONFIG_ERRORS = new Set(['IMPORT_TARGET_NOT_EMPTY', 'IMPORT_INPUT_INVALID', 'IMPORT_TOO_MANY_BAD_ROWS'])

/**
 * `import-csv --nodes[=Label[:Label]=]FILE[,FILE…] … --relationships[=TYPE=]FILE[,FILE…] … --storage-dir DIR`:
 * the offline importer (core/src/import) with a progress bar on stderr and its summary as JSON on stdout.
 */
export async function importCsvCommand(args: ImportCsvArgs): Promise<number> {
  const options = parsedOptions(args)
  if (typeof options === 'string') {
    process.stderr.write(`service-http-server import-csv: ${options}\n`)
    return ExitCode.Config
  }
  const bar = progressBar('import-csv | {rows} rows | {rate} rows/s | {rejected} rejected')
  const started = performance.now()
  bar.start(0, 0, { rows: 0, rate: 0, rejected: 0 })
  try {
    const summary = await importCsv({
      ...options,
      onProgress: (rows, rejected) =>
        bar.update(0, {
          rows,
          rejected,
          rate: Math.round(rows / Math.max(0.001, (performance.now() - started) / 1000)),
        }),
    })
    bar.stop()
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
    return ExitCode.Ok
  } catch (error) {
    bar.stop()
    if (!(error instanceof EngineError)) throw error
    process.stderr.write(`service-http-server: ${error.code}: ${error.message}\n`)
    return CONFIG_ERRORS.has(error.code) ? ExitCode.Config : ExitCode.RecoveryIntegrity
  }
}

type Options = Omit<Parameters<typeof importCsv>[0], 'onProgress'>

function parsedOptions(args: ImportCsvArgs): Options | string {
  if (args.storageDir === undefined) return 'give --storage-dir DIR (an empty or missing directory)'
  if (args.nodes.length === 0) return 'give at least one --nodes FILE'
  const delimiter = character('--delimiter', args.delimiter ?? ',')
  const arrayDelimiter = character('--array-delimiter', args.arrayDelimiter ?? ';')
  const quote = character('--quote', args.quote ?? '"')
  for (const c of [delimiter, arrayDelimiter, quote]) if (c.startsWith('--')) return c
  if (delimiter === arrayDelimiter) return '--delimiter and --array-delimiter must differ'
  const tolerance = args.badTolerance === undefined ? DEFAULT_BAD_TOLERANCE : Number(args.badTolerance)
  if (!(Number.isSafeInteger(tolerance) && tolerance >= 0) && tolerance !== Number.POSITIVE_INFINITY)
    return `--bad-tolerance must be a non-negative integer or Infinity, not ${JSON.stringify(args.badTolerance)}`
  const idType = (args.idType ?? 'string').toLowerCase()
  if (idType !== 'string' && idType !== 'integer')
    return `--id-type must be string or integer, not ${JSON.stringify(args.idType)}`
  return {
    dir: resolve(args.storageDir),
    idType,
    nodes: args.nodes.map((v) => inputGroup(v, 'nodes')),
    relationships: args.relationships.map((v) => inputGroup(v, 'relationships')),
    format: { delimiter, arrayDelimiter, quote },
    badTolerance: tolerance,
    reportPath: resolve(args.report ?? 'import.report'),
  }
}

/** One character, with neo4j-admin's `TAB` and `\t` spellings; an error message (starting `--`) otherwise. */
function character(option: string, value: string): string {
  const c = value === 'TAB' || value === '\\t' ? '\t' : value
  return c.length === 1 ? c : `${option} must be one character (or TAB), not ${JSON.stringify(value)}`
}

/**
 * neo4j-admin's group syntax: `[Label[:Label]…=]files` for nodes, `[TYPE=]files` for relationships, the files
 * comma-separated (the first holds the header). A value that is an existing file as a whole is only a file.
 */
export function inputGroup(value: string, kind: 'nodes' | 'relationships'): InputGroup {
  const eq = value.indexOf('=')
  const prefix = eq > 0 && !existsSync(value) ? value.slice(0, eq) : ''
  const files = (prefix === '' ? value : value.slice(eq + 1))
    .split(',')
    .filter((f) => f !== '')
    .map((f) => resolve(f))
  if (prefix === '') return { files }
  if (kind === 'relationships') return { files, type: prefix }
  return { files, labels: prefix.split(':').filter((l) => l !== '') }
}

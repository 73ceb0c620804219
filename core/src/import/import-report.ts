import { closeSync, openSync, writeSync } from 'node:fs'
import { EngineError } from '../errors.js'

/** Why a row was left out of the import. */
export type BadRowKind =
  | 'bad_id'
  | 'duplicate_id'
  | 'dangling_relationship'
  | 'missing_type'
  | 'type_error'
  | 'field_count'

export type BadRowCounts = Record<BadRowKind, number>

/**
 * The report of rejected rows: one line per row (`file:row: kind: reason`) in `path`, counts by kind for the
 * summary. Past `tolerance` rejected rows the import stops with an error (neo4j-admin's `--bad-tolerance`),
 * so a broken input never goes on being skipped row after row unnoticed.
 */
export class ImportReport {
  readonly counts: BadRowCounts = {
    bad_id: 0,
    duplicate_id: 0,
    dangling_relationship: 0,
    missing_type: 0,
    type_error: 0,
    field_count: 0,
  }
  total = 0
  private readonly fd: number

  constructor(
    readonly path: string,
    private readonly tolerance: number,
  ) {
    this.fd = openSync(path, 'w', 0o644)
  }

  reject(kind: BadRowKind, file: string, row: number, reason: string): void {
    this.counts[kind]++
    this.total++
    writeSync(this.fd, `${file}:${row}: ${kind}: ${reason}\n`)
    if (this.total > this.tolerance)
      throw new EngineError(
        'IMPORT_TOO_MANY_BAD_ROWS',
        `more than ${this.tolerance} rows were rejected (the last: ${file}:${row}: ${reason}); nothing was imported — see ${this.path}, fix the input or raise --bad-tolerance`,
      )
  }

  close(): void {
    closeSync(this.fd)
  }
}

import type { OpenResult } from './result-stream.js'

/** Open results on one connection (each holds up to the row budget): PULL or DISCARD before running more. */
export const MAX_OPEN_RESULTS = 16

/**
 * The results a connection has open, by query id: one auto-commit result (qid -1), or up to
 * MAX_OPEN_RESULTS in an explicit transaction, numbered from 0 at each BEGIN. A PULL or DISCARD without a
 * qid means the last one opened.
 */
export class OpenResults {
  private readonly results = new Map<number, OpenResult>()
  private nextQid = 0
  private lastQid = -1

  /** `streaming(true)` when a streamed result opens, `streaming(false)` when it leaves. */
  constructor(private readonly streaming?: (open: boolean) => void) {}

  get size(): number {
    return this.results.size
  }

  get full(): boolean {
    return this.results.size >= MAX_OPEN_RESULTS
  }

  /** A transaction began: its statements are numbered from 0. */
  restartNumbering(): void {
    this.nextQid = 0
  }

  /** The id of the next statement run in the transaction. */
  takeQid(): number {
    return this.nextQid++
  }

  add(result: OpenResult): void {
    this.results.set(result.qid, result)
    if (result.cursor !== undefined) this.streaming?.(true)
    this.lastQid = result.qid
  }

  /** The result a PULL or DISCARD names (`qid` -1: the last one opened), if open. */
  find(qid: number): OpenResult | undefined {
    return this.results.get(qid === -1 ? this.lastQid : qid)
  }

  /** A result leaves the connection (finished, failed or closed). */
  drop(result: OpenResult): void {
    if (this.results.get(result.qid) !== result) return
    this.results.delete(result.qid)
    if (result.cursor !== undefined) this.streaming?.(false)
  }

  /** Every open result stops (its streamed work with it). */
  closeAll(reason: string): void {
    for (const result of this.results.values()) {
      result.close(reason)
      this.drop(result)
    }
  }
}

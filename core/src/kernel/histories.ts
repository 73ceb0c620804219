import type { GraphCatalog } from '../graph/catalog.js'
import type { CommitRecord } from '../graph/commit.js'
import { type HistoryLine, RecordHistory, type SeqColumn } from '../history/record-history.js'

export interface HistoryImageLine {
  kind: 'history'
  workspace: string
  entry: HistoryLine
}

/** Record history per workspace: the before-images every commit leaves, read by as-of readers. */
export class Histories {
  private readonly byWorkspace = new Map<string, RecordHistory>()

  constructor(
    private readonly catalog: GraphCatalog,
    private readonly maxVersions: number,
  ) {}

  of(workspace: string): RecordHistory {
    let h = this.byWorkspace.get(workspace)
    if (h === undefined) {
      h = new RecordHistory(this.maxVersions)
      this.byWorkspace.set(workspace, h)
    }
    return h
  }

  reset(): void {
    this.byWorkspace.clear()
  }

  /** Before a commit is applied: remember what it replaces. */
  capture(workspace: string, commit: CommitRecord, seq: number): void {
    this.of(workspace).capture(this.catalog.workspace(workspace), commit, seq)
  }

  /** When a record was created, for checkpoint images. */
  createdAt(workspace: string, kind: 'node' | 'rel'): SeqColumn {
    const history = this.of(workspace)
    return kind === 'node' ? history.nodeCreated : history.relCreated
  }

  *imageLines(): Iterable<HistoryImageLine> {
    for (const [workspace, history] of this.byWorkspace) {
      for (const entry of history.export()) yield { kind: 'history', workspace, entry }
    }
  }

  loadLine(line: HistoryImageLine): void {
    this.of(line.workspace).import(line.entry)
  }

  finishLoad(): void {
    for (const h of this.byWorkspace.values()) h.sortOrder()
  }
}

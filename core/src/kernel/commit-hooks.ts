import type { CommitHook, CommittedWrite } from './types.js'

/**
 * The hooks run after every durable write, in registration order, each after the previous one finished.
 * A hook with nothing to do returns no promise, so a write outside a session waits on nothing here.
 */
export class CommitHooks {
  private readonly hooks: CommitHook[] = []

  add(hook: CommitHook): void {
    this.hooks.push(hook)
  }

  /** Runs every hook for the commits that wrote something; undefined when none of them had to wait. */
  run(
    commits: readonly (CommittedWrite & { ops: readonly unknown[] })[],
    sessionId: string | undefined,
    label: string | undefined,
  ): Promise<void> | undefined {
    if (this.hooks.length === 0) return undefined
    return this.from(0, written(commits), sessionId, label)
  }

  private from(
    first: number,
    written: readonly CommittedWrite[],
    sessionId: string | undefined,
    label: string | undefined,
  ): Promise<void> | undefined {
    for (let i = first; i < this.hooks.length; i++) {
      const running = this.hooks[i]!(written, sessionId, label)
      if (running !== undefined) return running.then(() => this.from(i + 1, written, sessionId, label))
    }
    return undefined
  }
}

/** The commits that wrote something: the list itself when all did (a single write: no copy per write). */
function written<T extends { ops: readonly unknown[] }>(commits: readonly T[]): readonly T[] {
  for (const c of commits) if (c.ops.length === 0) return commits.filter((c) => c.ops.length > 0)
  return commits
}

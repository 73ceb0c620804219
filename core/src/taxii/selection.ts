/** A deployment's choice of workspaces (`*` for all, or a comma list of workspace ids). */
export class WorkspaceSelection {
  private constructor(
    readonly all: boolean,
    readonly ids: ReadonlySet<string>,
  ) {}

  static readonly ALL = new WorkspaceSelection(true, new Set())
  static readonly NONE = new WorkspaceSelection(false, new Set())

  /** `*`, or workspace ids separated by commas (blanks ignored); throws on `*` mixed with ids. */
  static parse(text: string): WorkspaceSelection {
    const items = text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
    if (items.includes('*')) {
      if (items.length > 1) throw new Error('`*` cannot be combined with workspace ids')
      return WorkspaceSelection.ALL
    }
    return new WorkspaceSelection(false, new Set(items))
  }

  has(workspaceId: string): boolean {
    return this.all || this.ids.has(workspaceId)
  }

  toString(): string {
    return this.all ? '*' : [...this.ids].join(',')
  }
}

import type { Boundary, TimelineNode } from './types.js'

/**
 * The boundaries of a timeline tree in lineage order (each boundary after its parent: the order they were
 * made, which a commit sequence alone does not tell when a timeshot and its snapshot share one), so a
 * scrubber can move along them; walked with a stack (a long session is a deep chain).
 */
export function orderedBoundaries(roots: TimelineNode[]): Boundary[] {
  const out: Boundary[] = []
  const stack = [...roots].reverse()
  while (stack.length > 0) {
    const node = stack.pop()!
    out.push(node.boundary)
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
  return out
}

/** A short human label: kind, label and time. */
export function boundaryTitle(b: Boundary): string {
  const time = b.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')
  return `${b.kind} · ${b.label === '' ? 'write' : b.label} · ${time}`
}

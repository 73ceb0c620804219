import type { ProjectionDiff } from './diff.js'
import { clear, el, formatCount } from './dom.js'
import type { Projection } from './types.js'

/** The line above the drawing: what is shown, the budget it was drawn within, its use, and any truncation. */
export function renderBudget(status: HTMLElement, p: Projection, title: string): void {
  const m = p.metadata
  const b = m.applied_budget
  status.className = m.partial ? 'budget-status truncated' : 'budget-status'
  status.dataset.partial = String(m.partial)
  clear(
    status,
    el('strong', {}, title),
    ` · ${formatCount(m.returned_nodes)} nodes, ${formatCount(m.returned_relationships)} relationships` +
      ` (budget ${formatCount(b.max_nodes)} nodes, ${formatCount(b.max_relationships)} relationships,` +
      ` ${formatCount(b.max_payload_bytes)} bytes, ${formatCount(b.max_computation_units)} units;` +
      ` used ${formatCount(m.computation_units)} units)`,
    m.partial
      ? el(
          'span',
          { className: 'truncation', 'data-testid': 'truncation' },
          ` · Truncated by the budget: ${formatCount(m.omitted_nodes)} nodes, ${formatCount(m.omitted_relationships)} relationships and ${formatCount(m.omitted_properties)} properties left out.`,
        )
      : ' · complete',
  )
}

/** Label colours with their counts. */
export function renderLegend(
  list: HTMLElement,
  colours: ReadonlyMap<string, string>,
  counts: ReadonlyMap<string, number>,
): void {
  const swatches: [HTMLElement, string][] = []
  clear(
    list,
    ...[...colours].map(([label, colour]) => {
      const swatch = el('span', { className: 'swatch', 'aria-hidden': 'true' })
      swatches.push([swatch, colour])
      return el('li', {}, swatch, `${label} (${formatCount(counts.get(label) ?? 0)})`)
    }),
  )
  // Colours come from data, so they are set through CSSOM (allowed by the CSP), never as inline style text.
  for (const [swatch, colour] of swatches) swatch.style.background = colour
}

/** Counts of added, removed and changed records, and the nodes of each (first 50) to select. */
export function renderDiff(
  box: HTMLElement,
  diff: ProjectionDiff,
  nameOf: (id: string) => string,
  choose: (id: string) => void,
): void {
  const list = (state: 'added' | 'removed' | 'changed') =>
    [...diff.nodes]
      .filter(([, s]) => s === state)
      .slice(0, 50)
      .map(([id]) =>
        el(
          'li',
          {},
          el('button', { type: 'button', className: 'link', onclick: () => choose(id) }, nameOf(id)),
        ),
      )
  clear(
    box,
    el(
      'p',
      { 'data-testid': 'diff-counts' },
      el('span', { className: 'added' }, `${formatCount(diff.counts.added)} added`),
      ', ',
      el('span', { className: 'removed' }, `${formatCount(diff.counts.removed)} removed`),
      ', ',
      el('span', { className: 'changed' }, `${formatCount(diff.counts.changed)} changed`),
      ' (nodes and relationships, from the earlier to the later boundary)',
    ),
    ...(['added', 'removed', 'changed'] as const).map((s) => {
      const items = list(s)
      return items.length === 0
        ? null
        : el('details', {}, el('summary', {}, `${s} nodes`), el('ul', { className: 'plain' }, ...items))
    }),
  )
}

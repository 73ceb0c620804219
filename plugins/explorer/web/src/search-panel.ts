import { clear, el } from './dom.js'
import { shortRationale } from './records.js'
import type { SeedCandidate } from './types.js'

/** Seed-search candidates with their rationale; each is a button that selects it on the graph. */
export function renderCandidates(
  list: HTMLElement,
  candidates: readonly SeedCandidate[],
  drawn: (id: string) => boolean,
  choose: (id: string) => void,
): void {
  if (candidates.length === 0) {
    clear(list, el('li', { className: 'hint' }, 'No candidates.'))
    return
  }
  clear(
    list,
    ...candidates.map((c) =>
      el(
        'li',
        { 'data-node-id': c.node_id },
        el(
          'button',
          { type: 'button', className: 'link', onclick: () => choose(c.node_id) },
          c.title ?? c.node_id,
        ),
        ` ${c.score.toFixed(3)}`,
        c.labels === undefined ? null : el('span', { className: 'labels' }, ` ${c.labels.join(', ')}`),
        drawn(c.node_id) ? null : el('span', { className: 'hint' }, ' (not in this projection)'),
        el('p', { className: 'rationale' }, shortRationale(c.explanation.rationale)),
        el(
          'details',
          {},
          el('summary', {}, 'why'),
          el('p', { className: 'rationale' }, c.explanation.rationale),
        ),
      ),
    ),
  )
}

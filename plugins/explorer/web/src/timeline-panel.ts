import { clear, el } from './dom.js'
import { boundaryTitle } from './timeline.js'
import type { Boundary } from './types.js'

/** The boundary list (each a button, the shown one marked) and the compare choices; "current" ends both. */
export function renderBoundaryChoices(
  list: HTMLElement,
  compare: HTMLSelectElement,
  boundaries: readonly Boundary[],
  chosen: { shown: string; compare: string | null },
  choose: (id: string) => void,
): void {
  const item = (id: string, title: string) =>
    el(
      'li',
      {},
      el(
        'button',
        {
          type: 'button',
          className: 'link',
          'aria-current': id === chosen.shown ? 'true' : null,
          onclick: () => choose(id),
        },
        title,
      ),
    )
  clear(
    list,
    ...boundaries.map((b) => item(b.boundary_id, boundaryTitle(b))),
    item('current', 'current graph'),
  )
  clear(
    compare,
    el('option', { value: '' }, '(no comparison)'),
    ...boundaries.map((b) => el('option', { value: b.boundary_id }, boundaryTitle(b))),
    el('option', { value: 'current' }, 'current graph'),
  )
  compare.value = chosen.compare ?? ''
}

/** Tabs after the WAI-ARIA pattern: arrow keys move between them, Enter/Space/click opens one. */
export function wireTabs(tabs: HTMLElement[]): void {
  const open = (tab: HTMLElement) => {
    for (const t of tabs) {
      const selected = t === tab
      t.setAttribute('aria-selected', String(selected))
      t.tabIndex = selected ? 0 : -1
      const panel = document.getElementById(t.getAttribute('aria-controls') ?? '')
      if (panel !== null) panel.hidden = !selected
    }
    tab.focus()
  }
  tabs.forEach((tab, i) => {
    tab.tabIndex = i === 0 ? 0 : -1
    tab.addEventListener('click', () => open(tab))
    tab.addEventListener('keydown', (event) => {
      const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0
      if (step === 0) return
      event.preventDefault()
      open(tabs[(i + step + tabs.length) % tabs.length]!)
    })
  })
}

import { clear, el } from './dom.js'
import type { ExplorerSession } from './types.js'

/** The session list: each session is a button that opens it; the one shown is marked `aria-current`. */
export function renderSessions(
  list: HTMLElement,
  sessions: readonly ExplorerSession[],
  current: string | null,
  open: (sessionId: string) => void,
): void {
  if (sessions.length === 0) {
    clear(list, el('li', { className: 'hint' }, 'No sessions yet. Start one with POST /v1/sessions/start.'))
    return
  }
  clear(
    list,
    ...sessions.map((s) =>
      el(
        'li',
        { className: s.status === 'stopped' ? 'stopped' : '' },
        el(
          'button',
          {
            type: 'button',
            className: 'session',
            'data-session-id': s.session_id,
            'aria-current': s.session_id === current ? 'true' : null,
            onclick: () => open(s.session_id),
          },
          el('span', { className: 'session-actor' }, `${s.actor_id} (${s.actor_kind})`),
          el(
            'span',
            { className: 'session-meta' },
            `${s.workspace_id} · ${s.status} · ${new Date(s.started_at_ms).toISOString().slice(0, 19)}Z`,
          ),
          el('span', { className: 'session-id' }, s.session_id),
        ),
      ),
    ),
  )
}

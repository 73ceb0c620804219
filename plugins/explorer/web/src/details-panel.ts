import { clear, el } from './dom.js'
import { displayName, formatValue, plainValue, textOf } from './records.js'
import type { ProjectedNode, ProjectedRelationship, TraceVersion, TypedValue } from './types.js'

export type SelectedRecord =
  | { kind: 'node'; record: ProjectedNode }
  | { kind: 'relationship'; record: ProjectedRelationship; sourceTitle: string; targetTitle: string }

/** Properties shown in their own sections rather than in the property table. */
const SPECIAL = new Set(['stix_id', 'stix_raw', 'provenance_json', 'evidence_refs', 'evidence_raw'])

const parseJson = (text: string | null): unknown => {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

const definition = (term: string, value: unknown, testid?: string) => [
  el('dt', {}, term),
  el('dd', { 'data-testid': testid }, formatValue(value)),
]

function propertyTable(properties: Record<string, TypedValue>): HTMLElement {
  const keys = Object.keys(properties)
    .filter((k) => !SPECIAL.has(k))
    .sort()
  if (keys.length === 0) return el('p', { className: 'hint' }, 'No properties in this projection.')
  return el(
    'table',
    { className: 'props' },
    el(
      'thead',
      {},
      el('tr', {}, el('th', { scope: 'col' }, 'property'), el('th', { scope: 'col' }, 'value')),
    ),
    el(
      'tbody',
      {},
      ...keys.map((k) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row' }, k),
          el('td', { title: properties[k]!.type }, formatValue(plainValue(properties[k]))),
        ),
      ),
    ),
  )
}

/** Provenance as the record states it: a memory's provenance list, a STIX object's source and references. */
function provenanceSection(properties: Record<string, TypedValue>): HTMLElement | null {
  const memory = parseJson(textOf(properties.provenance_json))
  const raw = parseJson(textOf(properties.stix_raw)) as Record<string, unknown> | null
  const items: HTMLElement[] = []
  if (Array.isArray(memory)) {
    for (const p of memory as {
      source_id?: string
      locator?: string | null
      observed_at?: string | null
    }[]) {
      items.push(
        el(
          'li',
          {},
          `${p.source_id ?? '?'}${p.locator ? ` (${p.locator})` : ''}${p.observed_at ? `, observed ${p.observed_at}` : ''}`,
        ),
      )
    }
  }
  if (raw !== null) {
    if (typeof raw.created_by_ref === 'string') items.push(el('li', {}, `created by ${raw.created_by_ref}`))
    const refs = Array.isArray(raw.external_references) ? raw.external_references : []
    for (const r of refs.slice(0, 8) as { source_name?: string; external_id?: string; url?: string }[]) {
      items.push(el('li', {}, [r.source_name, r.external_id, r.url].filter(Boolean).join(' · ')))
    }
    if (refs.length > 8)
      items.push(el('li', { className: 'hint' }, `… and ${refs.length - 8} more references`))
  }
  if (items.length === 0) return null
  return el('section', {}, el('h3', {}, 'Provenance'), el('ul', { className: 'plain' }, ...items))
}

function evidenceSection(properties: Record<string, TypedValue>): HTMLElement | null {
  const refs = plainValue(properties.evidence_refs)
  const raw = textOf(properties.evidence_raw)
  if (!Array.isArray(refs) && raw === null) return null
  return el(
    'section',
    {},
    el('h3', {}, 'Evidence'),
    Array.isArray(refs)
      ? el('ul', { className: 'plain' }, ...refs.map((r) => el('li', {}, String(r))))
      : null,
    raw === null ? null : el('pre', { className: 'excerpt' }, raw.slice(0, 2_000)),
  )
}

export function renderDetails(container: HTMLElement, selected: SelectedRecord, note: string | null): void {
  const { record } = selected
  const p = record.properties
  const stixId = textOf(p.stix_id)
  const head =
    selected.kind === 'node'
      ? el(
          'p',
          { className: 'title' },
          displayName(selected.record),
          ' ',
          el('span', { className: 'labels' }, selected.record.labels.join(', ')),
        )
      : el(
          'p',
          { className: 'title' },
          `${selected.sourceTitle} —${selected.record.relationship_type}→ ${selected.targetTitle}`,
        )
  clear(
    container,
    head,
    el(
      'dl',
      { className: 'facts' },
      ...definition('id', record.id, 'record-id'),
      ...(stixId === null ? [] : definition('STIX id', stixId, 'stix-id')),
      ...definition('version', `${record.version} (${record.version_id})`),
      ...definition('status', record.status),
      ...(record.confidence === null ? [] : definition('confidence', record.confidence)),
      ...(record.first_seen === null ? [] : definition('first seen', record.first_seen)),
      ...(record.last_seen === null ? [] : definition('last seen', record.last_seen)),
    ),
    note === null ? null : el('p', { className: 'hint' }, note),
    el('h3', {}, 'Properties'),
    propertyTable(p),
    provenanceSection(p),
    evidenceSection(p),
    el('div', { id: 'trace-section' }),
  )
}

/** A memory's versions from `trace`: who changed it, when, through which operation. */
export function renderTrace(container: HTMLElement, versions: readonly TraceVersion[] | string): void {
  const section = container.querySelector('#trace-section')
  if (section === null) return
  if (typeof versions === 'string') {
    clear(section, el('h3', {}, 'Versions'), el('p', { className: 'hint' }, versions))
    return
  }
  clear(
    section,
    el('h3', {}, `Versions (${versions.length})`),
    el(
      'ol',
      { className: 'plain', 'data-testid': 'memory-versions' },
      ...versions.map((v) =>
        el(
          'li',
          {},
          `v${v.version} · ${v.operation ?? '?'} · ${v.recorded_at ?? ''} · actor ${v.actor_id ?? '?'}${v.session_id ? ` · session ${v.session_id}` : ''}`,
        ),
      ),
    ),
  )
}

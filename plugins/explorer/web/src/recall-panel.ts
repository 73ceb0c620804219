import { clear, el, formatCount } from './dom.js'
import type { RecallItem, RecallResult } from './types.js'

export const recallTitle = (item: RecallItem): string => {
  const v = item.record.content.value
  const text =
    typeof v === 'string'
      ? v
      : typeof v === 'object' && v !== null && 'text' in v
        ? String((v as { text: unknown }).text)
        : JSON.stringify(v)
  return text.length > 90 ? `${text.slice(0, 87)}…` : text
}

/** A recall: its items, why each was selected and the path the walk took to it (drawn on the graph). */
export function renderRecall(
  container: HTMLElement,
  result: RecallResult,
  nameOf: (id: string) => string,
  choose: (id: string) => void,
): void {
  const { usage, completeness } = result
  clear(
    container,
    el(
      'p',
      { className: completeness.truncated ? 'hint truncated' : 'hint' },
      `${formatCount(usage.items)} items, depth ${usage.depth}, cost ${formatCount(usage.cost)}, ${formatCount(usage.payload_bytes)} bytes, ${usage.elapsed_ms} ms`,
      completeness.truncated ? ` · stopped by ${completeness.outcomes.join(', ') || 'the page size'}` : '',
    ),
    el(
      'ol',
      { className: 'result-list' },
      ...result.items.map((item) =>
        el(
          'li',
          { 'data-node-id': item.record.id },
          el(
            'button',
            { type: 'button', className: 'link', onclick: () => choose(item.record.id) },
            recallTitle(item),
          ),
          el(
            'p',
            { className: 'rationale' },
            `${item.selection_reasons.join(', ')} · depth ${item.depth} · score ${item.score.toFixed(3)}`,
          ),
          el(
            'p',
            { className: 'path', 'data-testid': 'recall-path' },
            'path: ',
            item.selection_path.memory_ids.map(nameOf).join(' → '),
          ),
        ),
      ),
    ),
  )
}

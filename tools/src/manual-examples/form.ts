/**
 * The canonical text both sides of a comparison are rendered to: the documented cell (parsed from the manual's
 * notation) and the engine's value. Integers and floats stay distinct; floats are compared to 12 significant
 * digits (the manual prints some rounded); map keys and labels are sorted; temporal values keep their kind
 * apart from strings (the manual prints strings quoted, temporal values bare).
 */
export const int = (n: bigint): string => n.toString()
export const float = (n: number): string =>
  Number.isFinite(n) ? `f:${Number(n.toPrecision(12))}` : `f:${String(n)}`
export const str = (s: string): string => JSON.stringify(s)
export const temporal = (text: string): string => `t:${text}`
export const map = (entries: [string, string][]): string =>
  `{${entries
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}:${v}`)
    .join(',')}}`
export const list = (items: string[]): string => `[${items.join(',')}]`
export const node = (labels: string[], props: [string, string][]): string =>
  `(${labels
    .slice()
    .sort()
    .map((l) => `:${l}`)
    .join('')}${props.length === 0 ? '' : map(props)})`
export const rel = (type: string, props: [string, string][]): string =>
  `[:${type}${props.length === 0 ? '' : map(props)}]`
/** A point by its SRID and coordinates (floats). */
export const point = (srid: number, coords: number[]): string =>
  `point(${srid};${coords.map((c) => float(c)).join(';')})`

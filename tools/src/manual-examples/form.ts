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
/**
 * Neo4j prints times with seconds and nine-digit fractions (`12:00:00`, `.002000000`), we print the shortest
 * ISO form (`12:00`, `.002`): both are brought to seconds and a fraction without trailing zeros.
 */
export const temporal = (text: string): string =>
  `t:${text
    .replace(/(^|T)(\d{2}:\d{2})(?![:\d])/, '$1$2:00')
    .replace(/(:\d{2})\.(\d*?)0+(?!\d)/, (_, s: string, f: string) => (f === '' ? s : `${s}.${f}`))
    .replace(/\+00:00$/, 'Z')}`
/** A string the manual quotes although the value is temporal (some pages do): its whole text is a time. */
export const TEMPORAL_TEXT =
  /^(?:-?P-?[\dT.][\dYMWDTHS.,-]*|\d{4}-\d{2}-\d{2}(?:T[\d:.]+)?(?:Z|[+-]\d{2}:\d{2})?(?:\[[\w/+-]+\])?|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)$/
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

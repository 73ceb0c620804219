import {
  type IntPropertyColumns,
  intPropertyBuffers,
  intPropertyColumnsText,
  isIntPropertyColumns,
} from './int-property-columns.js'

/**
 * A checkpoint line of columns: a JSON object whose fields are written in the order given, a string field as
 * JSON text as it is, a typed array as a JSON array of its numbers, integer property columns as their object.
 */
export interface ColumnLine {
  fields: [name: string, value: string | Float64Array | IntPropertyColumns][]
}

/** The JSON text of a column line (one line, no newline). */
export function columnLineText(line: ColumnLine): string {
  let text = '{'
  for (let i = 0; i < line.fields.length; i++) {
    const [name, value] = line.fields[i]!
    if (i > 0) text += ','
    const json =
      typeof value === 'string'
        ? value
        : isIntPropertyColumns(value)
          ? intPropertyColumnsText(value)
          : `[${value.join(',')}]`
    text += `${JSON.stringify(name)}:${json}`
  }
  return `${text}}`
}

/** The transferable buffers of a column line, for `postMessage`: each once (columns may share one). */
export function columnBuffers(line: ColumnLine): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>()
  for (const [, value] of line.fields) {
    if (typeof value === 'string') continue
    if (isIntPropertyColumns(value)) for (const buffer of intPropertyBuffers(value)) out.add(buffer)
    else out.add(value.buffer as ArrayBuffer)
  }
  return [...out]
}

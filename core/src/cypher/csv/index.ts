export type { CsvImportPolicy, CsvLocation } from './location.js'
export { resolveCsvLocation } from './location.js'
export type { CsvPosition } from './position.js'
export { type CsvReadOptions, type CsvRecord, readCsv } from './reader.js'
export {
  type CsvRow,
  type CsvSourcePlan,
  csvRows,
  type LoadedRow,
  loadCsvRows,
} from './source.js'

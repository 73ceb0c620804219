export type { CsvImportPolicy, CsvLocation } from './location.js'
export { resolveCsvLocation } from './location.js'
export type { CsvPosition, CsvRecord } from './position.js'
export { type CsvReadOptions, readCsv, readCsvRuns } from './reader.js'
export {
  type CsvRow,
  type CsvSourcePlan,
  csvRowRuns,
  type LoadedRow,
  loadCsvRuns,
} from './source.js'

/** Where LOAD CSV is in its file: what `file()` and `linenumber()` answer (ExecContext.csv). */
export interface CsvPosition {
  file: string
  line: number
}

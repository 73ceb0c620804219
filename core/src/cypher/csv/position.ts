/** Where LOAD CSV is in its file: what `file()` and `linenumber()` answer (ExecContext.csv). */
export interface CsvPosition {
  file: string
  line: number
}

/** One CSV record: its fields (an unquoted empty field is null, as Neo4j reads it) and its line in the file. */
export interface CsvRecord {
  fields: (string | null)[]
  line: number
}

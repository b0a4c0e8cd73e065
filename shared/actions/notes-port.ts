/** Where the built-in note actions keep run notes (DynamoDB on AWS and locally). */
export interface NotesPort {
  /** Sets a note to a value (idempotent: the same call twice leaves the same state). */
  put(runId: string, name: string, value: string): Promise<void>;
  /** Appends a line to a note and returns the number of lines (not idempotent). */
  append(runId: string, name: string, line: string): Promise<number>;
}

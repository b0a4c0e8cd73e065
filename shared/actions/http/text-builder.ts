/**
 * Builds readable plain text line by line: inline text has its whitespace collapsed, block boundaries
 * become line breaks or blank lines (never more than one blank line in a row), preformatted text is kept.
 */
export class TextBuilder {
  readonly #lines: string[] = [];
  #line = '';
  #space = false;
  #pending: 0 | 1 | 2 = 0;

  /** Inline text: runs of whitespace become one space, and a space separates it from what came before. */
  inline(text: string): void {
    const collapsed = text.replace(/\s+/g, ' ');
    if (collapsed === '') return;
    const core = collapsed.trim();
    if (core === '') {
      this.#space = true;
      return;
    }
    this.#flush();
    if ((this.#space || collapsed.startsWith(' ')) && this.#line !== '' && !this.#line.endsWith(' ')) {
      this.#line += ' ';
    }
    this.#line += core;
    this.#space = collapsed.endsWith(' ');
  }

  /** Preformatted text: line breaks and indentation kept. */
  pre(text: string): void {
    this.#flush();
    const [first = '', ...rest] = text.replace(/\r\n?/g, '\n').split('\n');
    this.#line += first;
    for (const line of rest) {
      this.#lines.push(this.#line);
      this.#line = line;
    }
    this.#space = false;
  }

  /** Text that starts a line (a list bullet, a heading's hashes), after any pending break. */
  lead(marker: string): void {
    this.#flush();
    if (this.#line.trim() !== '') {
      this.#lines.push(this.#line);
      this.#line = '';
    }
    this.#line = marker;
    this.#space = false;
  }

  /** A line break (1) or a blank line (2) before whatever comes next. */
  break(kind: 1 | 2): void {
    if (kind > this.#pending) this.#pending = kind;
    this.#space = false;
  }

  #flush(): void {
    if (this.#pending === 0) return;
    if (this.#line.trim() !== '') this.#lines.push(this.#line);
    this.#line = '';
    if (this.#pending === 2 && this.#lines.length > 0 && this.#lines.at(-1) !== '') this.#lines.push('');
    this.#pending = 0;
  }

  /** The text: trailing spaces trimmed, at most one blank line in a row, no leading or trailing blank lines. */
  toString(): string {
    const lines = [...this.#lines, this.#line].map((line) => line.replace(/[ \t]+$/, ''));
    return lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/^\n+|\n+$/g, '');
  }
}

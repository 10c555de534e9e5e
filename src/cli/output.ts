/** The CLI's user-facing output (stdout for results, stderr for messages); logs go through pino. */
export const output = {
  line(text = ''): void {
    process.stdout.write(`${text}\n`);
  },
  json(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  },
  error(text: string): void {
    process.stderr.write(`${text}\n`);
  },
  /** A right-padded table of rows. */
  table(rows: Array<Record<string, string>>): void {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0] as Record<string, string>);
    const widths = columns.map((column) =>
      Math.max(column.length, ...rows.map((row) => (row[column] ?? '').length)),
    );
    const format = (cells: string[]) =>
      cells
        .map((cell, index) => cell.padEnd(widths[index] ?? 0))
        .join('  ')
        .trimEnd();
    this.line(format(columns));
    for (const row of rows) this.line(format(columns.map((column) => row[column] ?? '')));
  },
};

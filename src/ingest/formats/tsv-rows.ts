import { decodeText } from './lines.js';

/** One row of a delimited file: its fields and the line it starts on. */
export interface TsvRow {
  fields: string[];
  line: number;
}

/**
 * Streams rows of a tab-separated file as PatentsView writes it (Python `csv.QUOTE_NONNUMERIC`):
 * fields are optionally wrapped in double quotes, a quoted field may hold tabs and line breaks, and
 * `""` inside quotes is a quote. Only the current row is held in memory.
 */
export async function* readTsvRows(
  input: AsyncIterable<string | Uint8Array>,
  delimiter = '\t',
): AsyncGenerator<TsvRow> {
  const separator = delimiter.charCodeAt(0);
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  // Inside quotes, and whether the previous character was a quote (end or first half of `""`).
  let inQuotes = false;
  let quotePending = false;
  let line = 1;
  let rowLine = 1;
  let rowHasContent = false;
  for await (const text of decodeText(input)) {
    let start = 0;
    for (let index = 0; index < text.length; index += 1) {
      const char = text.charCodeAt(index);
      if (inQuotes) {
        if (quotePending) {
          quotePending = false;
          if (char === 0x22) {
            field += '"';
            start = index + 1;
            continue;
          }
          // The pending quote closed the field; this character is handled as outside quotes.
          inQuotes = false;
        } else if (char === 0x22) {
          field += text.slice(start, index);
          start = index + 1;
          quotePending = true;
          continue;
        } else {
          if (char === 0x0a) line += 1;
          continue;
        }
      }
      if (char === separator || char === 0x0a) {
        field += text.slice(start, index);
        fields.push(quoted ? field : field.replace(/\r$/, ''));
        field = '';
        quoted = false;
        start = index + 1;
        if (char === 0x0a) {
          if (rowHasContent || fields.length > 1 || fields[0] !== '') yield { fields, line: rowLine };
          fields = [];
          line += 1;
          rowLine = line;
          rowHasContent = false;
        }
        continue;
      }
      if (char === 0x22 && field.length === 0 && start === index && !quoted) {
        inQuotes = true;
        quoted = true;
        rowHasContent = true;
        start = index + 1;
        continue;
      }
      if (char !== 0x0d) rowHasContent = true;
    }
    // A quote that ends the chunk stays pending: the next chunk's first character decides.
    field += text.slice(start);
  }
  if (field.length > 0 || fields.length > 0) {
    fields.push(quoted ? field : field.replace(/\r$/, ''));
    yield { fields, line: rowLine };
  }
}

import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { decodeText } from './lines.js';

/** One row of a delimited file: its fields and the line it starts on. */
export interface TsvRow {
  fields: string[];
  line: number;
}

/**
 * Streams rows of a tab-separated file as PatentsView writes it (Python `csv.QUOTE_NONNUMERIC`) with
 * csv-parse: fields are optionally wrapped in double quotes, a quoted field may hold tabs and line
 * breaks, `""` inside quotes is a quote, and a quote inside an unquoted field is kept as it is.
 * Only the current row is held in memory. A quoted field still open at the end of the input (a cut-off
 * file) ends the reading with csv-parse's error, which names the line.
 */
export async function* readTsvRows(
  input: AsyncIterable<string | Uint8Array>,
  delimiter = '\t',
): AsyncGenerator<TsvRow> {
  const source = Readable.from(decodeText(input));
  const parser = parse({
    delimiter,
    quote: '"',
    escape: '"',
    record_delimiter: ['\r\n', '\n'],
    relax_quotes: true,
    relax_column_count: true,
  });
  // A failure of the input (an unreadable file, text that is not UTF-8) ends the rows with its error.
  source.on('error', (error) => parser.destroy(error));
  source.pipe(parser);
  // Blank lines come through as one empty field and are skipped here, so that every row's first line
  // is counted: a row spans one line plus the line breaks inside its quoted fields.
  let line = 1;
  try {
    for await (const fields of parser as AsyncIterable<string[]>) {
      const start = line;
      line += 1;
      for (const field of fields) {
        for (let at = field.indexOf('\n'); at !== -1; at = field.indexOf('\n', at + 1)) line += 1;
      }
      if (fields.length > 1 || fields[0] !== '') yield { fields, line: start };
    }
  } finally {
    source.destroy();
  }
}

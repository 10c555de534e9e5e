import { createDeflate, deflateSync } from 'node:zlib';

/** One page of a hand-built PDF: its content stream (PDF operators) and whether to Flate it. */
export interface BuiltPage {
  content: string | Buffer;
  /** Flate the content; `'done'` means `content` is Flate data already. */
  compress?: boolean | 'done';
  /** The page's /MediaBox (default US Letter, `[0, 0, 612, 792]`). */
  mediaBox?: [number, number, number, number];
  /** More entries of the page dictionary, as PDF text (e.g. `/Rotate 90 /CropBox [0 0 300 400]`). */
  entries?: string;
  /**
   * RGB images the page's resources name (`/Im1`, `/Im2`, … in order); the content paints them,
   * e.g. `q 240 0 0 160 72 400 cm /Im1 Do Q`. `rgb` holds width × height × 3 bytes.
   */
  images?: Array<{ width: number; height: number; rgb: Buffer }>;
}

/**
 * Writes a small, valid PDF (Helvetica, US Letter) from raw content streams, with a correct xref
 * table. Tests use it for documents the shared data lacks: many pages, compression bombs, known
 * layouts. `sharedContent` makes every page use the same content stream object (tiny files with
 * huge page counts); `extraObjects` are written but not used by any page.
 */
export function buildPdf(
  pages: BuiltPage[],
  options: { sharedContent?: boolean; extraObjects?: string[] } = {},
): Buffer {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => {
    objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
    return objects.length;
  };
  const catalog = add('');
  const pageTree = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const stream = (page: BuiltPage) => {
    const raw = typeof page.content === 'string' ? Buffer.from(page.content, 'latin1') : page.content;
    const data = page.compress === true ? deflateSync(raw) : raw;
    const filter = page.compress ? ' /Filter /FlateDecode' : '';
    return add(
      Buffer.concat([
        Buffer.from(`<< /Length ${data.length}${filter} >>\nstream\n`, 'latin1'),
        data,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
  };
  const shared = options.sharedContent && pages[0] ? stream(pages[0]) : undefined;
  const image = (picture: { width: number; height: number; rgb: Buffer }) => {
    const data = deflateSync(picture.rgb);
    return add(
      Buffer.concat([
        Buffer.from(
          `<< /Type /XObject /Subtype /Image /Width ${picture.width} /Height ${picture.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
          'latin1',
        ),
        data,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
  };
  const kids = pages.map((page) => {
    const content = shared ?? stream(page);
    const mediaBox = (page.mediaBox ?? [0, 0, 612, 792]).join(' ');
    const entries = page.entries ? ` ${page.entries}` : '';
    const images = (page.images ?? []).map((picture, index) => `/Im${index + 1} ${image(picture)} 0 R`);
    const xObjects = images.length > 0 ? ` /XObject << ${images.join(' ')} >>` : '';
    return add(
      `<< /Type /Page /Parent ${pageTree} 0 R /MediaBox [${mediaBox}]${entries} /Resources << /Font << /F1 ${font} 0 R >>${xObjects} >> /Contents ${content} 0 R >>`,
    );
  });
  for (const extra of options.extraObjects ?? []) add(extra);
  objects[catalog - 1] = Buffer.from(`<< /Type /Catalog /Pages ${pageTree} 0 R >>`, 'latin1');
  objects[pageTree - 1] = Buffer.from(
    `<< /Type /Pages /Count ${kids.length} /Kids [${kids.map((kid) => `${kid} 0 R`).join(' ')}] >>`,
    'latin1',
  );

  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(offset);
    const object = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(object);
    offset += object.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>`,
    'startxref',
    String(offset),
    '%%EOF',
    '',
  ].join('\n');
  parts.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(parts);
}

/** A content stream that writes `lines` of Helvetica at the given left edge, top-down. */
export function textContent(lines: string[], options: { x?: number; top?: number; size?: number } = {}) {
  const size = options.size ?? 10;
  const x = options.x ?? 72;
  let y = options.top ?? 720;
  const escapeText = (text: string) => text.replace(/[\\()]/g, (character) => `\\${character}`);
  const operators = lines.map((line) => {
    const operator = `BT /F1 ${size} Tf ${x} ${y} Td (${escapeText(line)}) Tj ET`;
    y -= size * 1.2;
    return operator;
  });
  return operators.join('\n');
}

/** Flate data of `chunk` repeated `times` times, built without holding the inflated bytes. */
export async function deflateRepeated(chunk: Buffer, times: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on('data', (part: Buffer) => parts.push(part));
  const finished = new Promise((resolve) => deflate.on('end', resolve));
  for (let index = 0; index < times; index++) {
    if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await finished;
  return Buffer.concat(parts);
}

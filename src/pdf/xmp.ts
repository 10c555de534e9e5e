/**
 * The DOI a PDF's XMP metadata gives (`prism:doi`, `pdfx:doi`, a `dc:identifier` of "doi:…"),
 * read from the XMP packets stored uncompressed in the file (publishers write them so, for tools
 * without a PDF parser to find). A compressed packet is not read: the printed DOI covers those.
 * Decision 0050: a PDF's identifiers come from its metadata and its front matter only.
 */
export function xmpDoi(bytes: Uint8Array): string | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let from = 0;
  for (let packets = 0; packets < maximumPackets; packets++) {
    const start = buffer.indexOf('<x:xmpmeta', from, 'latin1');
    if (start < 0) return undefined;
    const close = buffer.indexOf('</x:xmpmeta>', start, 'latin1');
    const end = Math.min(close < 0 ? buffer.length : close, start + maximumPacketBytes);
    const packet = buffer.toString('latin1', start, end);
    for (const pattern of doiPatterns) {
      const doi = pattern.exec(packet)?.[1];
      if (doi) return doi.replace(/&amp;/g, '&').replace(/[.,;]+$/, '');
    }
    from = end;
  }
  return undefined;
}

/** Images carry packets of their own; a document has a handful at most before giving up. */
const maximumPackets = 64;
const maximumPacketBytes = 256 * 1024;

const doi = '(10\\.\\d{4,9}\\/[^\\s"<>]+)';
const doiPrefix = '(?:doi:|info:doi\\/|https?:\\/\\/(?:dx\\.)?doi\\.org\\/)';
const doiPatterns = [
  new RegExp(`<(?:prism|pdfx):doi>\\s*(?:doi:)?${doi}\\s*<`, 'i'),
  new RegExp(`(?:prism|pdfx):doi="(?:doi:)?${doi}"`, 'i'),
  new RegExp(`<dc:identifier>\\s*(?:<rdf:\\w+>\\s*<rdf:li[^>]*>\\s*)?${doiPrefix}${doi}\\s*<`, 'i'),
  new RegExp(`dc:identifier="${doiPrefix}${doi}"`, 'i'),
];

import { describe, expect, it } from 'vitest';
import { xmpDoi } from './xmp.js';

const pdfWith = (...packets: string[]) =>
  new Uint8Array(
    Buffer.from(
      `%PDF-1.7\n1 0 obj\n<< >>\nstream\n${packets.join('\nendstream\nstream\n')}\nendstream\n`,
      'latin1',
    ),
  );
const packet = (inner: string) =>
  `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description>${inner}</rdf:Description></rdf:RDF></x:xmpmeta>`;

describe('xmpDoi', () => {
  it('reads prism:doi as an element or an attribute, and a dc:identifier naming a DOI', () => {
    expect(xmpDoi(pdfWith(packet('<prism:doi>10.1111/imm.13445</prism:doi>')))).toBe('10.1111/imm.13445');
    expect(xmpDoi(pdfWith(packet('prism:doi="10.1093/nar/gkae223"')))).toBe('10.1093/nar/gkae223');
    expect(
      xmpDoi(pdfWith(packet('<dc:identifier>https://doi.org/10.1186/s13059-023-02935-8</dc:identifier>'))),
    ).toBe('10.1186/s13059-023-02935-8');
  });

  it('looks past packets without a DOI (an image\u2019s) and finds nothing in a PDF without XMP', () => {
    const image = packet('<xmp:CreatorTool>Camera</xmp:CreatorTool>');
    expect(xmpDoi(pdfWith(image, packet('<prism:doi>10.5555/x.1</prism:doi>')))).toBe('10.5555/x.1');
    expect(xmpDoi(pdfWith('BT (10.5555/in.the.text) Tj ET'))).toBeUndefined();
  });
});

import {
  type FigureFormat,
  figureFormats,
  type ParsedChunk,
  type ParsedFigure,
  type PdfMetadata,
} from '../../ports/pdf-extractor.js';
import { contentFolder, safeSegment } from '../storage/blob-layout.js';

/**
 * A figure as listed in a stored text; its image lives in the BlobStore under `figureBlobKey`
 * (`format` absent = png).
 */
export type StoredFigure = Omit<ParsedFigure, 'image' | 'format'> & { format?: FigureFormat };

/**
 * The readable form of a document, whatever it came from (a parsed PDF or a full-text source).
 * Stored as JSON in the BlobStore, keyed by the PDF's content hash and the parser version, so
 * reading a document a second time costs one lookup.
 */
export interface DocumentText {
  /** Content hash of the PDF, or of the source key for text from a full-text source. */
  sha256: string;
  /** `pdf` or the name of the full-text source that gave the text. */
  origin: string;
  pageCount: number;
  hasTextLayer: boolean;
  metadata: PdfMetadata;
  chunks: ParsedChunk[];
  figures: StoredFigure[];
  /** Page sizes in points (see `ParsedDocument.pageSizes`); absent for text from a source. */
  pageSizes?: Array<[number, number]>;
}

/** The stored parse of a PDF for one parser version. */
export function parsedBlobKey(sha256: string, parserVersion: string): string {
  return `${contentFolder('parsed', sha256)}/${safeSegment(parserVersion)}.json`;
}

/** A figure's image file; figure ids are `p<page>-<n>`. */
export function figureBlobKey(sha256: string, figureId: string, format: FigureFormat = 'png'): string {
  return `${contentFolder('figures', sha256)}/${safeSegment(figureId)}.${figureFormats[format].extension}`;
}

/** A full-text source's text, by source name and the hash of the source's key. */
export function sourcedBlobKey(source: string, keyHash: string): string {
  return `sources/${safeSegment(source)}/${keyHash.slice(0, 2)}/${keyHash}.json`;
}

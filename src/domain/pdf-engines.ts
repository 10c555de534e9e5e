/**
 * The PDF libraries the pipeline can run on (`ALEXANDRIA_PDF_ENGINE`). Both feed the same stages
 * (lines, reading order, blocks, chunks, figures, metadata); only how text runs and images are read
 * differs. Named here so config can list them without importing the engines (`pdf/engine.ts`).
 */
export const pdfEngineNames = ['pdfium', 'pdfjs'] as const;
export type PdfEngineName = (typeof pdfEngineNames)[number];

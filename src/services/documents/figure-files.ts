import { AppError, notFound } from '../../domain/errors.js';
import type { FigureLinkParts, FigureLinks } from './figure-links.js';
import type { ParseCache } from './parse-cache.js';

/** Serves figure images to holders of a valid signed link (no API key: browsers open these). */
export interface FigureFiles {
  /** The image file; throws `forbidden` (403) for a bad or expired signature, `not_found` when absent. */
  read(parts: FigureLinkParts): Promise<Uint8Array>;
}

export class FigureFileService implements FigureFiles {
  constructor(
    private readonly links: FigureLinks,
    private readonly parses: ParseCache,
  ) {}

  async read(parts: FigureLinkParts): Promise<Uint8Array> {
    if (!this.links.verify(parts)) {
      throw new AppError(
        'forbidden',
        'This figure link is invalid or has expired; read the chunk again for a fresh link',
      );
    }
    const image = await this.parses.figure(parts.sha256, parts.figureId, parts.format);
    if (!image) throw notFound('No such figure');
    return image;
  }
}

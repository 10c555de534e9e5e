import { AppError, notFound } from '../../domain/errors.js';
import type { ProjectStore } from '../../ports/project-store.js';
import type { FigureLinkParts, FigureLinks } from './figure-links.js';
import type { ParseCache } from './parse-cache.js';

/** Serves figure images to holders of a valid signed link (no API key: browsers open these). */
export interface FigureFiles {
  /**
   * The image file; throws `forbidden` (403) for a bad or expired signature, `not_found` when the
   * figure is absent or, for a link tied to a tenant, that tenant no longer stores the document.
   */
  read(parts: FigureLinkParts): Promise<Uint8Array>;
}

export class FigureFileService implements FigureFiles {
  constructor(
    private readonly links: FigureLinks,
    private readonly parses: ParseCache,
    /** Where a tied link's tenant must still store the document. */
    private readonly store: Pick<ProjectStore, 'findDocumentBySha256'>,
  ) {}

  async read(parts: FigureLinkParts): Promise<Uint8Array> {
    const grant = this.links.verify(parts);
    if (!grant) {
      throw new AppError(
        'forbidden',
        'This figure link is invalid or has expired; read the chunk again for a fresh link',
      );
    }
    // Parses and figures are shared by content hash; the tenant's own document row is what ties them.
    if (grant.tenantId !== undefined) {
      const document = await this.store.findDocumentBySha256(grant.tenantId, parts.sha256);
      if (!document) throw notFound('No such figure');
    }
    const image = await this.parses.figure(parts.sha256, parts.figureId, parts.format);
    if (!image) throw notFound('No such figure');
    return image;
  }
}

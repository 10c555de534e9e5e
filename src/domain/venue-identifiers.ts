/**
 * Identifiers of the open proceedings sites — OpenReview forums, PMLR and JMLR paper pages, the ACL
 * Anthology — normalised, and read from a paper's url when a record gives no explicit id. The ML
 * Anthology corpus has no DOIs: its OpenReview id or PMLR/JMLR page is the only thing that names a
 * paper, so without these keys a short title ("Kernel Thinning") was stored again on every re-run.
 */

const openReviewPattern = /^[A-Za-z0-9_-]{6,40}$/;
/** `v235/abad-rocamora24a` (PMLR volume and paper key). */
const pmlrPattern = /^v\d{1,4}\/[A-Za-z0-9_-]{1,80}$/;
/** `v25/21-1334` (JMLR volume and paper id; old volumes use keys such as `v3/blei03a`). */
const jmlrPattern = /^v\d{1,4}\/[A-Za-z0-9_.-]{1,80}$/;
/** Paper ids only (`2022.acl-long.1`, `P19-1001`), not volumes or events. */
const aclPattern = /^(\d{4}\.[a-z0-9-]+\.\d+|[A-Z]\d{2}-\d{4,5})$/;

/** An OpenReview forum id (`rhgIgTSSxW`), from the id or a forum/pdf url; null otherwise. */
export function normalizeOpenReviewId(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const text = raw.trim();
  const fromUrl = /^https?:\/\/(?:www\.)?openreview\.net\/(?:forum|pdf)\?(?:.*&)?id=([^&#\s]+)/i.exec(text);
  const id = fromUrl?.[1] ?? text;
  return openReviewPattern.test(id) ? id : null;
}

/** A PMLR paper (`v235/abad-rocamora24a`), from the id or a proceedings.mlr.press url. */
export function normalizePmlrId(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const text = raw.trim();
  const fromUrl =
    /^https?:\/\/proceedings\.mlr\.press\/(v\d+)\/([A-Za-z0-9_-]+?)(?:\.html|\.pdf|\/.*)?$/i.exec(text);
  const id = fromUrl ? `${fromUrl[1]}/${fromUrl[2]}` : text;
  return pmlrPattern.test(id) ? id : null;
}

/** A JMLR paper (`v25/21-1334`), from the id or a jmlr.org page or PDF url. */
export function normalizeJmlrId(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const text = raw.trim();
  const fromUrl =
    /^https?:\/\/(?:www\.)?jmlr\.org\/papers\/(?:v|volume)(\d+)\/([A-Za-z0-9_.-]+?)(?:\.html|\/.*)?$/i.exec(
      text,
    );
  const id = fromUrl ? `v${fromUrl[1]}/${fromUrl[2]}` : text;
  return jmlrPattern.test(id) ? id : null;
}

/** An ACL Anthology paper id from an aclanthology.org paper url (`…/2022.acl-demo.1.pdf`). */
export function aclIdOfUrl(url: string): string | null {
  const match = /^https?:\/\/(?:www\.)?aclanthology\.org\/([A-Za-z0-9.-]+?)(?:\.pdf)?\/?$/i.exec(url.trim());
  return match?.[1] && aclPattern.test(match[1]) ? match[1] : null;
}

/** Venue identifiers named by a url (landing page or PDF), by `PaperIdentifiers` field. */
export function venueIdentifiersOfUrl(url: string | null | undefined): {
  openreview?: string;
  pmlr?: string;
  jmlr?: string;
  acl?: string;
} {
  if (!url) return {};
  const openreview = /openreview\.net\//i.test(url) ? normalizeOpenReviewId(url) : null;
  if (openreview) return { openreview };
  const pmlr = /proceedings\.mlr\.press\//i.test(url) ? normalizePmlrId(url) : null;
  if (pmlr) return { pmlr };
  const jmlr = /jmlr\.org\/papers\//i.test(url) ? normalizeJmlrId(url) : null;
  if (jmlr) return { jmlr };
  const acl = /aclanthology\.org\//i.test(url) ? aclIdOfUrl(url) : null;
  return acl ? { acl } : {};
}

import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../lib/api';
import {
  knownPaper,
  type PaperInfo,
  paperInfo,
  rememberPaper,
  remoteHostOf,
  remotePdfUrl,
} from '../lib/paper-registry';
import type { ProjectWithPapers } from '../lib/types';

/**
 * What the reader knows about its document: from the page's registry (search results, projects,
 * chat references), else, for a stored document, from its project's list. The title in the route
 * (`title=`) is used until then.
 */
export function useDocumentInfo(pdf: string, title: string): PaperInfo | null {
  const [info, setInfo] = useState<PaperInfo | null>(() => knownPaper(pdf));
  useEffect(() => {
    const known = knownPaper(pdf);
    setInfo(known);
    const project = /^PROJ:([^/]+)\//i.exec(pdf)?.[1];
    if (known || !project) return;
    const controller = new AbortController();
    getJson<ProjectWithPapers>(`/api/projects/${encodeURIComponent(project)}`, { signal: controller.signal })
      .then((listed) => {
        const paper = listed.papers.find((item) => item.pdf_id === pdf);
        if (!paper) return;
        rememberPaper(pdf, paper);
        setInfo(paperInfo(paper));
      })
      .catch(() => undefined); // the reference line is a courtesy; the text still opens
    return () => controller.abort();
  }, [pdf]);
  return info ?? (title ? { title } : null);
}

/**
 * The reader's heading: the paper as people cite it (title; authors, year, venue; its page and its
 * PDF), never its document reference, which stays in `data-ref` for scripts.
 */
export function DocumentReference({ pdf, info }: { pdf: string; info: PaperInfo | null }) {
  const host = remoteHostOf(pdf);
  const pdfUrl = host ? remotePdfUrl(pdf) : null;
  const meta = [info?.byline, info?.year && !info.byline?.includes(info.year) ? info.year : null, info?.venue]
    .filter((part) => part)
    .join(' · ');
  return (
    <header class="document-reference" data-ref={pdf}>
      <h1 id="reader-title" tabIndex={-1}>
        {info?.title || (host ? `PDF from ${host}` : 'Stored paper')}
      </h1>
      {meta ? <p class="meta">{meta}</p> : null}
      <p class="meta links">
        {info?.url ? (
          <a href={info.url} target="_blank" rel="noopener noreferrer">
            Paper page
          </a>
        ) : null}
        {info?.url ? ' · ' : null}
        {pdfUrl ? (
          <a href={pdfUrl} target="_blank" rel="noopener noreferrer">
            Original PDF ({host})
          </a>
        ) : (
          <span>Stored in your projects</span>
        )}
      </p>
    </header>
  );
}

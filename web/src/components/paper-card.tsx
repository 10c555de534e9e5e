import { useState } from 'preact/hooks';
import { remoteFetchUnavailable } from '../lib/connectivity';
import { rememberPaper, remoteHostOf, remotePdfUrl } from '../lib/paper-registry';
import { authorLine, readableRef, yearOf } from '../lib/papers';
import { href } from '../lib/router';
import type { Paper } from '../lib/types';
import { AddToProject } from './add-to-project';

/**
 * How the card offers the full text: in the reader when the service can read it (a stored PDF; a
 * remote one while the service can reach the internet), else the PDF's own link for the browser.
 */
function FullTextAction({ paper, pdfRef }: { paper: Paper; pdfRef: string }) {
  const host = remoteHostOf(pdfRef);
  const pdfUrl = remotePdfUrl(pdfRef);
  if (host && pdfUrl && remoteFetchUnavailable()) {
    return (
      <span class="offline-note">
        <a class="button" href={pdfUrl} target="_blank" rel="noopener noreferrer">
          Open the PDF ({host})
        </a>{' '}
        <span class="meta">The server is offline: its full text cannot be fetched here now.</span>
      </span>
    );
  }
  return (
    <a
      class="button"
      href={href('read', { pdf: pdfRef, title: paper.title })}
      data-ref={pdfRef}
      onClick={() => rememberPaper(pdfRef, paper)}
    >
      Read full text
    </a>
  );
}

/** One search result or project entry: metadata, abstract on demand, read and add actions. */
export function PaperCard({ paper, actions }: { paper: Paper; actions?: preact.ComponentChildren }) {
  const [open, setOpen] = useState(false);
  const ref = readableRef(paper);
  const meta = [
    authorLine(paper.authors),
    yearOf(paper),
    paper.venue,
    paper.patent_number ? `Patent ${paper.patent_number}` : null,
    typeof paper.cited_by_count === 'number' ? `${paper.cited_by_count} citations` : null,
  ].filter((part) => part);
  return (
    <article class="paper">
      <h3>
        {paper.url ? (
          <a href={paper.url} target="_blank" rel="noopener noreferrer">
            {paper.title}
          </a>
        ) : (
          paper.title
        )}
      </h3>
      <p class="meta">{meta.join(' · ')}</p>
      {paper.doi ? <p class="meta">DOI {paper.doi}</p> : null}
      {paper.answer ? <p class="answer">{paper.answer}</p> : null}
      {paper.abstract ? (
        <div class="abstract">
          <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide abstract' : 'Show abstract'}
          </button>
          {open ? <p>{paper.abstract}</p> : null}
        </div>
      ) : null}
      <div class="actions">
        {ref ? <FullTextAction paper={paper} pdfRef={ref} /> : null}
        {actions ?? <AddToProject paper={paper} />}
      </div>
    </article>
  );
}

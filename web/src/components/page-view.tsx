import { useEffect, useState } from 'preact/hooks';
import { type ApiError, request } from '../lib/api';
import type { Chunk, Passage } from '../lib/types';

/**
 * The page of the PDF a chunk is printed on, with where the text is marked: the passage that
 * answers the question when there is one (`passage`), else the chunk's own boxes. The image is
 * drawn by the service (`/api/page_image`, 1000 px wide, fetched with the API key rather than
 * linked) for PDFs stored in a project; boxes are fractions of the page, drawn as rectangles of
 * an SVG laid over the image with a 1×1 view box, so they stay in place at any size. Buttons switch between the chunk's pages. Nothing shows when where
 * the chunk is printed is unknown (text from a full-text source).
 */
export function PageView({
  pdf,
  chunk,
  passage,
}: {
  pdf: string;
  chunk: Chunk;
  passage: Passage | undefined;
}) {
  const marks = passage?.boxes.length ? passage.boxes : (chunk.boxes ?? []);
  const pages = chunk.pages ?? [];
  const start = marks[0]?.page ?? pages[0] ?? 0;
  // The reader gives each chunk and answer its own view (a `key`), which opens on its page.
  const [page, setPage] = useState(start);
  // The image's object url once drawn, or why it cannot be shown.
  const [image, setImage] = useState<{ url?: string; note?: string }>({});

  useEffect(() => {
    if (page < 1) return;
    const controller = new AbortController();
    let url = '';
    setImage({});
    request('/api/page_image', { query: { pdf_id: pdf, page, width: 1000 }, signal: controller.signal })
      .then((response) => response.blob())
      .then((blob) => {
        url = URL.createObjectURL(blob);
        setImage({ url });
      })
      .catch((failure: ApiError) => {
        if (failure.name !== 'AbortError') {
          setImage({
            note:
              failure.status === 404 ? 'Pages are shown for papers stored in a project.' : failure.message,
          });
        }
      });
    return () => {
      controller.abort();
      URL.revokeObjectURL(url);
    };
  }, [pdf, page]);

  if (page < 1) return null;
  const shown = marks.filter((box) => box.page === page);
  return (
    <figure class="page-view">
      <figcaption>
        {image.note ??
          `Page ${page}${shown.length ? ` — ${passage?.boxes.length ? 'the answer' : 'this part'} is highlighted` : ''}`}
      </figcaption>
      {pages.length > 1 ? (
        <nav class="page-buttons" aria-label="Pages of this part">
          {pages.map((number) => (
            <button type="button" key={number} aria-pressed={number === page} onClick={() => setPage(number)}>
              Page {number}
            </button>
          ))}
        </nav>
      ) : null}
      {image.note ? null : (
        <div class="page-sheet">
          {image.url ? <img src={image.url} alt={`Page ${page} of the paper`} /> : null}
          {image.url ? (
            <svg viewBox="0 0 1 1" preserveAspectRatio="none" aria-hidden="true">
              {shown.map((box, index) => (
                <rect
                  class="page-highlight"
                  key={index}
                  x={box.x0}
                  y={box.y0}
                  width={box.x1 - box.x0}
                  height={box.y1 - box.y0}
                />
              ))}
            </svg>
          ) : null}
        </div>
      )}
    </figure>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { PaperCard } from '../components/paper-card';
import { messageOf, request } from '../lib/api';
import { codeSpans } from '../lib/hints';
import { navigate } from '../lib/router';
import { searchParameter } from '../lib/search-text';
import type { Paper } from '../lib/types';

const sorts = [
  ['relevance', 'Relevance'],
  ['cited_by_count', 'Most cited'],
  ['publication_date', 'Newest'],
] as const;

interface Results {
  papers: Paper[];
  total: number | null;
  nextOffset: number | null;
  /** No record has every word typed; these have some of them (the API's relaxed keyword search). */
  relaxed: boolean;
  /** The service's hint: on an empty result, why nothing came and what to do (decision 0045). */
  hint: string;
}

interface WrappedResults {
  paper_data: Paper[];
  next_offset: number | null;
  total_num_results: number;
  hint: string;
}

/**
 * Search papers or patents with the API's filters and sorts; the form state lives in the URL. A
 * question or a sentence is sent as `query` (ranked by its words, any may match), a few keywords as
 * `keywords` (every word must appear unless no record has them all): `searchParameter`'s rule. The
 * count shown is the count the API gives for what was sent; an empty result shows the service's
 * hint, the words every surface uses (index empty, sources off or unreachable, nothing matched).
 */
export function SearchPage({ params }: { params: URLSearchParams }) {
  const q = params.get('q') ?? '';
  const kind = params.get('kind') === 'patents' ? 'patents' : 'papers';
  const sort = params.get('sort') ?? 'relevance';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const reviewed = params.get('reviewed') !== 'false';
  const generative = params.get('answers') === 'true';
  const offset = Number(params.get('offset') ?? '0') || 0;

  const [form, setForm] = useState({ q, kind, sort, from, to, reviewed, generative });
  const [results, setResults] = useState<Results | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  useEffect(
    () => setForm({ q, kind, sort, from, to, reviewed, generative }),
    [q, kind, sort, from, to, reviewed, generative],
  );

  useEffect(() => {
    if (!q) {
      setResults(null);
      return;
    }
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    request(kind === 'patents' ? '/api/patents' : '/api/abstracts', {
      query: {
        [searchParameter(q)]: q,
        format: 'wrapped',
        sort,
        start_year: from,
        end_year: to,
        peer_reviewed_only: reviewed,
        generative_mode: generative,
        offset,
      },
      signal: controller.signal,
    })
      .then(async (response) => {
        const body = (await response.json()) as WrappedResults;
        const total = response.headers.get('x-total-count');
        setResults({
          papers: body.paper_data,
          total: total ? Number(total) : body.total_num_results,
          nextOffset: body.next_offset,
          relaxed: /contain every keyword/.test(body.hint),
          hint: body.hint,
        });
      })
      .catch((failure) => {
        if ((failure as Error).name !== 'AbortError') setError(messageOf(failure));
      })
      .finally(() => setLoading(false));
    return () => controller.abort();
  }, [q, kind, sort, from, to, reviewed, generative, offset]);

  const submit = (event: Event) => {
    event.preventDefault();
    navigate('search', {
      q: form.q.trim(),
      kind: form.kind,
      sort: form.sort,
      from: form.from,
      to: form.to,
      reviewed: form.reviewed ? undefined : 'false',
      answers: form.generative ? 'true' : undefined,
    });
  };
  const page = (nextOffset: number) =>
    navigate('search', {
      q,
      kind,
      sort,
      from,
      to,
      reviewed: reviewed ? undefined : 'false',
      answers: generative ? 'true' : undefined,
      offset: nextOffset || undefined,
    });

  return (
    <section aria-labelledby="search-title">
      <h1 id="search-title" tabIndex={-1}>
        Search
      </h1>
      <form class="search-form" onSubmit={submit} aria-label="Search papers and patents">
        <div class="field wide">
          <label for="search-q">What are you looking for?</label>
          <input
            id="search-q"
            type="search"
            value={form.q}
            required
            placeholder="e.g. text annotation tools for information extraction"
            onInput={(event) => setForm({ ...form, q: event.currentTarget.value })}
          />
        </div>
        <fieldset class="field">
          <legend>Search in</legend>
          {(['papers', 'patents'] as const).map((value) => (
            <label key={value} class="inline">
              <input
                type="radio"
                name="kind"
                value={value}
                checked={form.kind === value}
                onChange={() => setForm({ ...form, kind: value })}
              />
              {value === 'papers' ? 'Papers' : 'Patents'}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="search-sort">Sort by</label>
          <select
            id="search-sort"
            value={form.sort}
            onChange={(event) => setForm({ ...form, sort: event.currentTarget.value })}
          >
            {sorts.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div class="field narrow">
          <label for="search-from">From year</label>
          <input
            id="search-from"
            type="number"
            inputMode="numeric"
            min="1600"
            max="2100"
            value={form.from}
            onInput={(event) => setForm({ ...form, from: event.currentTarget.value })}
          />
        </div>
        <div class="field narrow">
          <label for="search-to">To year</label>
          <input
            id="search-to"
            type="number"
            inputMode="numeric"
            min="1600"
            max="2100"
            value={form.to}
            onInput={(event) => setForm({ ...form, to: event.currentTarget.value })}
          />
        </div>
        <div class="field checks">
          <label class="inline">
            <input
              type="checkbox"
              checked={form.reviewed}
              onChange={(event) => setForm({ ...form, reviewed: event.currentTarget.checked })}
            />
            Peer-reviewed only
          </label>
          <label class="inline">
            <input
              type="checkbox"
              checked={form.generative}
              onChange={(event) => setForm({ ...form, generative: event.currentTarget.checked })}
            />
            Answer from each paper
          </label>
        </div>
        <button type="submit" class="primary">
          Search
        </button>
      </form>

      <div aria-live="polite" aria-busy={loading}>
        {loading ? <p class="status">Searching…</p> : null}
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        {results && !loading ? (
          <>
            <p class="status result-count" data-total={results.total ?? undefined}>
              {results.papers.length === 0
                ? 'No results.'
                : `${results.total ?? results.papers.length} result${(results.total ?? results.papers.length) === 1 ? '' : 's'}${offset ? `, from ${offset + 1}` : ''}`}
            </p>
            {results.papers.length === 0 && results.hint ? (
              <p class="hint empty-hint">
                {codeSpans(results.hint).map((part, index) =>
                  part.code ? <code key={index}>{part.text}</code> : part.text,
                )}
              </p>
            ) : null}
            {results.relaxed && results.papers.length > 0 ? (
              <p class="meta">No paper has every word you typed; these have some of them.</p>
            ) : null}
            <ol class="results" start={offset + 1}>
              {results.papers.map((paper, index) => (
                <li key={`${paper.doi ?? paper.title}-${index}`}>
                  <PaperCard paper={paper} />
                </li>
              ))}
            </ol>
            <nav class="pager" aria-label="Result pages">
              {offset > 0 ? (
                <button type="button" onClick={() => page(Math.max(0, offset - results.papers.length))}>
                  Previous page
                </button>
              ) : null}
              {results.nextOffset !== null && results.papers.length > 0 ? (
                <button type="button" onClick={() => page(results.nextOffset ?? 0)}>
                  Next page
                </button>
              ) : null}
            </nav>
          </>
        ) : null}
      </div>
    </section>
  );
}

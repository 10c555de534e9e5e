import { useState } from 'preact/hooks';
import { getJson } from '../lib/api';

interface CheckResult {
  index: number;
  title: string | null;
  status: 'exists' | 'mismatch' | 'not_found' | 'preprint_now_published';
  fields: string[];
  raw?: string;
}

const statusLabels: Record<CheckResult['status'], string> = {
  exists: 'found',
  mismatch: 'differs',
  not_found: 'not found',
  preprint_now_published: 'preprint, now published',
};

/**
 * "Paste a bibliography" (decision 0048): a reference list as text — a References section, a
 * numbered list or one reference per line — checked against the index (`verify_references`,
 * format text) or parsed (`parse_references`) and imported into the project as CSL-JSON.
 */
export function PasteBibliography({
  projectId,
  disabled,
  run,
}: {
  projectId: string;
  disabled: boolean;
  run: (label: string, work: () => Promise<string>) => Promise<void>;
}) {
  const [text, setText] = useState('');
  const [checked, setChecked] = useState<CheckResult[] | null>(null);

  const check = () =>
    run('Checking the references…', async () => {
      const report = await getJson<{ results: CheckResult[]; counts: Record<string, number> }>(
        '/api/verify_references',
        { method: 'POST', json: { text, format: 'text' } },
      );
      setChecked(report.results);
      const { exists = 0, mismatch = 0, not_found = 0 } = report.counts;
      return `Checked ${report.results.length} references: ${exists} found, ${mismatch} differ, ${not_found} not found.`;
    });

  const importAll = () =>
    run('Reading the references and adding them…', async () => {
      const parsed = await getJson<{ entries: unknown[] }>('/api/parse_references', {
        method: 'POST',
        json: { text, format: 'text' },
      });
      const report = await getJson<{ imported: number; created: number }>(
        `/api/projects/${encodeURIComponent(projectId)}/import`,
        {
          method: 'POST',
          body: JSON.stringify(parsed.entries),
          headers: { 'content-type': 'text/plain; charset=utf-8' },
        },
      );
      setText('');
      setChecked(null);
      return `Added ${report.imported} references (${report.created} new) from the pasted list.`;
    });

  return (
    <div class="stack paste-bibliography">
      <label for="paste-bibliography">Paste a bibliography</label>
      <textarea
        id="paste-bibliography"
        rows={6}
        maxLength={400_000}
        placeholder="A References section, a numbered list, or one reference per line"
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
      />
      <div class="row">
        <button type="button" disabled={disabled || !text.trim()} onClick={() => void check()}>
          Check references
        </button>
        <button type="button" disabled={disabled || !text.trim()} onClick={() => void importAll()}>
          Add to project
        </button>
      </div>
      {checked ? (
        <ol class="checked-references">
          {checked.map((result) => (
            <li key={result.index} class={`check-${result.status}`}>
              <strong>{statusLabels[result.status]}</strong>
              {result.fields.length > 0 ? ` (${result.fields.join(', ')})` : ''}:{' '}
              {result.title ?? result.raw ?? ''}
            </li>
          ))}
        </ol>
      ) : null}
    </div>
  );
}

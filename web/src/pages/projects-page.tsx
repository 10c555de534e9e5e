import { useEffect, useState } from 'preact/hooks';
import { BusyStatus } from '../components/busy-status';
import { CitationGraph } from '../components/citation-graph';
import { PaperCard } from '../components/paper-card';
import { PasteBibliography } from '../components/paste-bibliography';
import { getJson, messageOf, request, type UploadProgress, uploadWithProgress } from '../lib/api';
import { loadProjects, onProjectsChanged, projectsChanged } from '../lib/projects';
import { href, navigate } from '../lib/router';
import type { Paper, ProjectSummary, ProjectWithPapers } from '../lib/types';

const exportFormats = [
  ['bibtex', 'BibTeX'],
  ['ris', 'RIS'],
  ['csl', 'CSL-JSON'],
] as const;

/** Downloads a keyed response as a file (a plain link cannot carry the API-key header). */
async function download(path: string, query: Record<string, string>, fallbackName: string): Promise<void> {
  const response = await request(path, { query });
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The bytes of an upload as they go, then a live line while the service reads the PDF. */
function UploadStatus({ name, progress }: { name: string; progress: UploadProgress }) {
  if (progress.phase === 'processing') {
    return (
      <BusyStatus
        className="status busy upload-progress"
        since={progress.since}
        label={`Reading “${name}” on the server (text, figures, metadata)…`}
        slowNote="Long PDFs take up to a minute."
      />
    );
  }
  const percent = progress.total ? Math.round((progress.loaded / progress.total) * 100) : null;
  return (
    <div class="status upload-progress" role="status" aria-live="polite">
      <label>
        Uploading “{name}”:{' '}
        {progress.total
          ? `${megabytes(progress.loaded)} of ${megabytes(progress.total)} (${percent}%)`
          : megabytes(progress.loaded)}
        <progress max={progress.total || undefined} value={progress.total ? progress.loaded : undefined} />
      </label>
    </div>
  );
}

function Status({ status }: { status: { text: string; error: boolean } | null }) {
  if (!status) return null;
  return (
    <p role={status.error ? 'alert' : 'status'} class={status.error ? 'error' : 'ok'}>
      {status.text}
    </p>
  );
}

/** The project library: create projects; upload, add, import, remove and export papers. */
export function ProjectsPage({ params }: { params: URLSearchParams }) {
  const selected = params.get('id') ?? 'gpt';
  const [projects, setProjects] = useState<ProjectSummary[]>([]);
  const [project, setProject] = useState<ProjectWithPapers | null>(null);
  const [newName, setNewName] = useState('');
  const [identifier, setIdentifier] = useState('');
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState<{ label: string; since: number } | null>(null);
  const [uploading, setUploading] = useState<{ name: string; progress: UploadProgress } | null>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    const load = () =>
      loadProjects(true)
        .then(setProjects)
        .catch((error) => setStatus({ text: messageOf(error), error: true }));
    load();
    return onProjectsChanged(() => setVersion((value) => value + 1));
  }, []);
  useEffect(() => {
    loadProjects()
      .then(setProjects)
      .catch(() => undefined);
    getJson<ProjectWithPapers>(`/api/projects/${encodeURIComponent(selected)}`)
      .then(setProject)
      .catch((error) => setStatus({ text: messageOf(error), error: true }));
  }, [selected, version]);

  /** Runs one action, with a live status line (`label`) while it works. */
  const run = async (label: string, work: () => Promise<string>) => {
    setBusy({ label, since: Date.now() });
    setStatus(null);
    try {
      setStatus({ text: await work(), error: false });
      projectsChanged();
    } catch (error) {
      setStatus({ text: messageOf(error), error: true });
    } finally {
      setBusy(null);
      setUploading(null);
    }
  };

  const create = (event: Event) => {
    event.preventDefault();
    void run('Creating the project…', async () => {
      const created = await getJson<ProjectSummary>('/api/create_project', {
        method: 'POST',
        query: { project_name: newName.trim() },
      });
      setNewName('');
      navigate('projects', { id: created.id });
      return `Created project “${created.name}”.`;
    });
  };

  const addIdentifier = (event: Event) => {
    event.preventDefault();
    const text = identifier.trim();
    const isUrl = /^https?:\/\//i.test(text);
    void run(
      isUrl ? 'Fetching and reading the PDF…' : `Looking up ${text} and fetching its PDF…`,
      async () => {
        const added = await getJson<Paper[]>('/api/add_to_project', {
          method: 'POST',
          query: { project_id: selected, ...(isUrl ? { pdf_url: text } : { paper_id: text }) },
        });
        setIdentifier('');
        return `Added “${added[0]?.title ?? text}”.`;
      },
    );
  };

  const upload = (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    const form = new FormData();
    form.append('file', file, file.name);
    setUploading({ name: file.name, progress: { phase: 'sending', loaded: 0, total: file.size } });
    void run(`Uploading “${file.name}”…`, async () => {
      const added = await uploadWithProgress<Paper[]>(
        '/api/add_to_project',
        { project_id: selected },
        form,
        (progress) => setUploading({ name: file.name, progress }),
      );
      input.value = '';
      return `Uploaded “${added[0]?.title ?? file.name}”.`;
    });
  };

  const importFile = (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    void run(`Importing “${file.name}”…`, async () => {
      const report = await getJson<{ imported: number; created: number; skipped: unknown[] }>(
        `/api/projects/${encodeURIComponent(selected)}/import`,
        { method: 'POST', body: await file.text(), headers: { 'content-type': 'text/plain; charset=utf-8' } },
      );
      input.value = '';
      return `Imported ${report.imported} entries (${report.created} new${report.skipped.length ? `, ${report.skipped.length} skipped` : ''}).`;
    });
  };

  const remove = (paper: Paper) =>
    run(`Removing “${paper.title}”…`, async () => {
      await request(
        `/api/projects/${encodeURIComponent(selected)}/papers/${encodeURIComponent(paper.entry_id ?? '')}`,
        {
          method: 'DELETE',
        },
      );
      return `Removed “${paper.title}”.`;
    });

  return (
    <section aria-labelledby="projects-title" class="projects">
      <h1 id="projects-title" tabIndex={-1}>
        Projects
      </h1>
      <div class="columns">
        <nav aria-label="Projects" class="project-list">
          <ul class="project-items">
            {projects.map((item) => (
              <li key={item.id}>
                <a
                  class="project-link"
                  href={href('projects', { id: item.id })}
                  aria-current={item.id === selected ? 'page' : undefined}
                >
                  {item.name} <span class="count">{item.paper_count}</span>
                </a>
              </li>
            ))}
          </ul>
          <form onSubmit={create} class="stack">
            <label for="new-project">New project</label>
            <input
              id="new-project"
              type="text"
              required
              maxLength={200}
              value={newName}
              onInput={(event) => setNewName(event.currentTarget.value)}
            />
            <button type="submit" disabled={busy !== null}>
              Create project
            </button>
          </form>
        </nav>

        <div class="project">
          <h2>{project?.name ?? selected}</h2>
          {uploading ? (
            <UploadStatus name={uploading.name} progress={uploading.progress} />
          ) : busy ? (
            <BusyStatus
              since={busy.since}
              label={busy.label}
              slowNote="Reading a PDF takes a while."
              slowAfter={6}
            />
          ) : null}
          <Status status={status} />
          <div class="tools">
            <form onSubmit={addIdentifier} class="stack">
              <label for="add-identifier">Add by identifier or PDF url</label>
              <input
                id="add-identifier"
                type="text"
                required
                placeholder="DOI:10.18653/v1/2022.acl-demo.1, ARXIV:2304.02623, https://…/paper.pdf"
                value={identifier}
                onInput={(event) => setIdentifier(event.currentTarget.value)}
              />
              <button type="submit" disabled={busy !== null}>
                Add
              </button>
            </form>
            <div class="stack">
              <label for="upload-pdf">Upload a PDF</label>
              <input
                id="upload-pdf"
                type="file"
                accept="application/pdf,.pdf"
                onChange={upload}
                disabled={busy !== null}
              />
            </div>
            <div class="stack">
              <label for="import-file">Import BibTeX, RIS or CSL-JSON</label>
              <input
                id="import-file"
                type="file"
                accept=".bib,.bibtex,.ris,.json,text/plain"
                onChange={importFile}
                disabled={busy !== null}
              />
            </div>
            <PasteBibliography projectId={selected} disabled={busy !== null} run={run} />
            <fieldset class="stack">
              <legend>Export</legend>
              <div class="row">
                {exportFormats.map(([format, label]) => (
                  <button
                    key={format}
                    type="button"
                    onClick={() =>
                      void download(
                        `/api/projects/${encodeURIComponent(selected)}/export`,
                        { format },
                        `${selected}.${format}`,
                      ).catch((error) => setStatus({ text: messageOf(error), error: true }))
                    }
                  >
                    {label}
                  </button>
                ))}
              </div>
            </fieldset>
          </div>

          {project && project.papers.length === 0 ? <p class="status">No papers yet.</p> : null}
          {project?.papers.some((paper) => paper.pdf_id) ? (
            <CitationGraph projectId={project.id} version={version} />
          ) : null}
          <ul class="results">
            {(project?.papers ?? []).map((paper) => (
              <li key={paper.entry_id}>
                <PaperCard
                  paper={paper}
                  actions={
                    <button
                      type="button"
                      onClick={() => void remove(paper)}
                      aria-label={`Remove “${paper.title}” from the project`}
                    >
                      Remove
                    </button>
                  }
                />
              </li>
            ))}
          </ul>
        </div>
      </div>
    </section>
  );
}

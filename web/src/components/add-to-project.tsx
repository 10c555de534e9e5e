import { useEffect, useId, useState } from 'preact/hooks';
import { messageOf, request } from '../lib/api';
import { addTarget } from '../lib/papers';
import { loadProjects, onProjectsChanged, projectsChanged } from '../lib/projects';
import type { Paper, ProjectSummary } from '../lib/types';
import { useElapsed } from './busy-status';

/** Files a paper in a chosen project (by identifier, else by PDF url) and says what happened. */
export function AddToProject({ paper, pdfRef }: { paper?: Paper; pdfRef?: string }) {
  const id = useId();
  const [projects, setProjects] = useState<ProjectSummary[]>([]);
  const [project, setProject] = useState('gpt');
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  const [busySince, setBusySince] = useState<number | null>(null);
  const seconds = useElapsed(busySince);

  useEffect(() => {
    const load = () =>
      loadProjects()
        .then(setProjects)
        .catch(() => setProjects([]));
    load();
    return onProjectsChanged(load);
  }, []);

  const target = paper
    ? addTarget(paper)
    : pdfRef?.startsWith('PDF_URL:')
      ? { pdf_url: pdfRef.slice(8) }
      : null;
  if (!target) return null;

  const add = async (event: Event) => {
    event.preventDefault();
    setBusySince(Date.now());
    setStatus(null);
    try {
      const response = await request('/api/add_to_project', {
        method: 'POST',
        query: { project_id: project, ...target },
      });
      const added = (await response.json()) as Paper[];
      const name = projects.find((item) => item.id === project)?.name ?? project;
      setStatus({ text: `Added “${added[0]?.title ?? 'paper'}” to ${name}.`, error: false });
      projectsChanged();
    } catch (error) {
      setStatus({ text: messageOf(error), error: true });
    } finally {
      setBusySince(null);
    }
  };

  return (
    <form class="add-to-project" onSubmit={add}>
      <label for={id}>Project</label>
      <select id={id} value={project} onChange={(event) => setProject(event.currentTarget.value)}>
        {(projects.length > 0 ? projects : [{ id: 'gpt', name: 'gpt' }]).map((item) => (
          <option key={item.id} value={item.id}>
            {item.name}
          </option>
        ))}
      </select>
      <button type="submit" disabled={busySince !== null}>
        {busySince !== null ? `Adding… ${seconds} s` : 'Add to project'}
      </button>
      {status ? (
        <span role="status" class={status.error ? 'error' : 'ok'}>
          {status.text}
        </span>
      ) : null}
    </form>
  );
}

import { getJson } from './api';
import type { ProjectSummary } from './types';

/** The project list, shared by every "Add to project" control and refreshed after changes. */
let cached: Promise<ProjectSummary[]> | null = null;
const listeners = new Set<() => void>();

export function loadProjects(force = false): Promise<ProjectSummary[]> {
  if (!cached || force) {
    cached = getJson<ProjectSummary[]>('/api/projects');
    cached.catch(() => {
      cached = null;
    });
  }
  return cached;
}

export function projectsChanged(): void {
  cached = null;
  for (const listener of listeners) listener();
}

export function onProjectsChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

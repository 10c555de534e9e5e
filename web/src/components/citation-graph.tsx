import { useEffect, useState } from 'preact/hooks';
import { getJson, messageOf } from '../lib/api';
import type { Paper } from '../lib/types';

/** GET /api/project_graph (issue 17 part 3). */
interface ProjectGraph {
  nodes: Array<{ id: string; paper: Paper; references: number; linked: number }>;
  edges: Array<{ source: string; target: string; reference: string; contexts: number }>;
  missing: Array<{ title: string; paper_id: string | null; count: number; cited_by: string[] }>;
  hint: string;
}

const size = 320;
const radius = 120;

/** A short label: the first words of the title, or its part before a colon. */
function shortTitle(title: string): string {
  const head = title.split(':')[0] ?? title;
  const words = head.split(/\s+/);
  return words.length > 4 ? `${words.slice(0, 4).join(' ')}…` : head;
}

/**
 * The project's papers on a circle (our own layout, no graph library), an arrow from each paper to
 * the papers it cites, and the works its papers cite that the project lacks.
 */
export function CitationGraph({ projectId, version }: { projectId: string; version: number }) {
  const [graph, setGraph] = useState<ProjectGraph | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setGraph(null);
    setError(null);
    getJson<ProjectGraph>('/api/project_graph', { query: { project_id: projectId } })
      .then(setGraph)
      .catch((failure) => setError(messageOf(failure)));
  }, [projectId, version]);

  if (error) return <p class="status error">Citation graph: {error}</p>;
  if (!graph) return <p class="status">Reading the reference lists…</p>;
  if (graph.nodes.length === 0) return null;
  const count = graph.nodes.length;
  const position = new Map(
    graph.nodes.map((node, at) => {
      const angle = (2 * Math.PI * at) / count - Math.PI / 2;
      return [
        node.id,
        {
          x: size / 2 + (count === 1 ? 0 : radius * Math.cos(angle)),
          y: size / 2 + (count === 1 ? 0 : radius * Math.sin(angle)),
        },
      ];
    }),
  );
  const titleOf = new Map(graph.nodes.map((node) => [node.id, node.paper.title]));

  return (
    <section class="citation-graph" aria-labelledby="citation-graph-title">
      <h3 id="citation-graph-title">Citation graph</h3>
      <svg
        viewBox={`-60 -20 ${size + 120} ${size + 40}`}
        width="100%"
        style={{ maxWidth: '32rem' }}
        role="img"
        aria-label={`${count} papers, ${graph.edges.length} citations between them`}
      >
        <defs>
          <marker
            id="cites-arrow"
            viewBox="0 0 10 10"
            refX="18"
            refY="5"
            markerWidth="6"
            markerHeight="6"
            orient="auto"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" fill="currentColor" />
          </marker>
        </defs>
        {graph.edges.map((edge) => {
          const from = position.get(edge.source);
          const to = position.get(edge.target);
          if (!from || !to) return null;
          return (
            <line
              key={`${edge.source}-${edge.target}`}
              x1={from.x}
              y1={from.y}
              x2={to.x}
              y2={to.y}
              stroke="currentColor"
              stroke-opacity="0.6"
              marker-end="url(#cites-arrow)"
            >
              <title>{`${titleOf.get(edge.source)} cites ${titleOf.get(edge.target)}`}</title>
            </line>
          );
        })}
        {graph.nodes.map((node) => {
          const at = position.get(node.id);
          if (!at) return null;
          return (
            <g key={node.id}>
              <circle cx={at.x} cy={at.y} r={8} fill={node.references > 0 ? '#2f6fb3' : '#999'}>
                <title>{`${node.paper.title} (${node.references} references, ${node.linked} linked)`}</title>
              </circle>
              <text x={at.x} y={at.y + 22} text-anchor="middle" font-size="11" fill="currentColor">
                {shortTitle(node.paper.title)}
              </text>
            </g>
          );
        })}
      </svg>
      <p class="status">{graph.hint}</p>
      {graph.missing.length > 0 ? (
        <>
          <h4>Cited by several papers here, missing from the project</h4>
          <ol class="missing-works">
            {graph.missing.map((work) => (
              <li key={work.title}>
                {work.title} <span class="count">cited by {work.count}</span>
                {work.paper_id ? <code> {work.paper_id}</code> : null}
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </section>
  );
}

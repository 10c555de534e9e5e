import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repositoryRoot } from './requirements.js';

/** One sample of a /metrics page: name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The metric families of a Prometheus text page (`# TYPE name type`) and its samples. */
export function parseMetricsPage(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[1] && type[2]) types.set(type[1], type[2]);
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample?.[1] || !sample[3]) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      if (key) labels[key] = value ?? '';
    }
    samples.push({ name: sample[1], labels, value: Number(sample[3]) });
  }
  return { types, samples };
}

/** The value of the one sample of `name` whose labels include `labels`, or undefined. */
export function sampleValue(
  page: { samples: Sample[] },
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return page.samples.find(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )?.value;
}

/** The PromQL expressions of deploy/grafana/alexandria.json (one per panel target). */
export function dashboardExpressions(): Array<{ where: string; expr: string }> {
  const dashboard = JSON.parse(
    readFileSync(join(repositoryRoot, 'deploy', 'grafana', 'alexandria.json'), 'utf8'),
  ) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
  };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr })),
  );
}

export interface RuleFile {
  groups: Array<{
    name: string;
    rules: Array<{ alert?: string; record?: string; expr: string; labels?: Record<string, string> }>;
  }>;
}

/** deploy/prometheus/alerts.yaml, parsed. */
export function alertRules(): RuleFile {
  return parse(readFileSync(join(repositoryRoot, 'deploy', 'prometheus', 'alerts.yaml'), 'utf8')) as RuleFile;
}

/** The PromQL expressions of the rule file, named by their rule. */
export function ruleExpressions(rules: RuleFile = alertRules()): Array<{ where: string; expr: string }> {
  return rules.groups.flatMap((group) =>
    group.rules.map((rule) => ({ where: `rule ${rule.alert ?? rule.record}`, expr: rule.expr })),
  );
}

/**
 * The series names an expression reads: identifiers followed by a selector, a range or an operator
 * (not functions, keywords or label names inside braces). Recording-rule names (with a colon) too.
 */
export function seriesNames(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\{[^}]*\}/g, '{}');
  const withoutGroupings = withoutStrings.replace(
    /\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g,
    '',
  );
  const names = new Set<string>();
  for (const match of withoutGroupings.matchAll(/\b([a-zA-Z_:][\w:]*)\b(?!\s*\()/g)) {
    const name = match[1] as string;
    if (promqlWords.has(name) || /^\d/.test(name)) continue;
    names.add(name);
  }
  return [...names];
}

const promqlWords = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'le',
  'inf',
  'Inf',
  'NaN',
  'm',
  's',
  'h',
  'd',
]);

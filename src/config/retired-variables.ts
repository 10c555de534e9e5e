import type { Environment } from './load-config.js';

/**
 * Variables earlier releases read and this one no longer does, each with what became of it. Still
 * set (an old `.env`, a deployment's manifest), one is not an error — the start goes on — but the
 * CLI says once, at start, that it is ignored and why (`retiredVariableNotices`).
 */
const retiredVariables: Record<string, string> = {
  ALEXANDRIA_PG_INDEX_LAYOUT:
    'the PostgreSQL paper index has one layout, `inverted`; an index created with the former `tsvector` layout is converted when first opened (docs/decisions/0058)',
};

/** One line for each retired variable set in `environment` (the process environment by default). */
export function retiredVariableNotices(environment: Environment = process.env): string[] {
  return Object.entries(retiredVariables)
    .filter(([name]) => environment[name] !== undefined)
    .map(([name, reason]) => `${name} is ignored (removed): ${reason}. Remove it from your environment.`);
}

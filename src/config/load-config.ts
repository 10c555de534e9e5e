import type { z } from 'zod';
import type { EnvVar, Section, SectionValues } from './env-var.js';
import { sections } from './sections/index.js';

type Sections = typeof sections;
/** The effective, validated configuration. */
export type Config = { [K in keyof Sections]: SectionValues<Sections[K]> };

export type Environment = Record<string, string | undefined>;

/** Thrown when variables are invalid; the message lists every bad variable, one a line. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => issue.message).join('; ');
}

/**
 * Reads and validates the whole configuration from `environment` (the process environment by
 * default; this module is the only reader of `process.env`). Empty strings count as unset, except
 * for a variable that says what its empty value means (`EnvVar.emptyText`).
 */
export function loadConfig(environment: Environment = process.env): Config {
  const problems: string[] = [];
  const config: Record<string, Record<string, unknown>> = {};
  for (const [sectionName, section] of Object.entries(sections as Record<string, Section>)) {
    const values: Record<string, unknown> = {};
    for (const [key, variable] of Object.entries(section)) {
      const raw = environment[variable.name];
      const empty = raw !== undefined && raw.trim() === '';
      const text =
        raw === undefined ? variable.defaultText : empty ? (variable.emptyText ?? variable.defaultText) : raw;
      const parsed = variable.schema.safeParse(text);
      if (parsed.success) values[key] = parsed.data;
      else problems.push(`${variable.name}: ${describeIssues(parsed.error)} (got ${JSON.stringify(raw)})`);
    }
    config[sectionName] = values;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config as Config;
}

/** Every variable with its section, for documentation and `alexandria config`. */
export function listVariables(): Array<{ section: string; key: string; variable: EnvVar<unknown> }> {
  return Object.entries(sections as Record<string, Section>).flatMap(([section, variables]) =>
    Object.entries(variables).map(([key, variable]) => ({ section, key, variable })),
  );
}

/**
 * Every secret value of the configuration (API keys, connection URLs, passwords), as text: the
 * logger scrubs them from every line it writes (decision 0042).
 */
export function secretValues(config: Config): string[] {
  const values: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  for (const { section, key, variable } of listVariables()) {
    if (variable.secret) collect((config as Record<string, Record<string, unknown>>)[section]?.[key]);
  }
  return values;
}

/** The configuration with secrets replaced by "***" (set) or null (unset), for printing. */
export function redactConfig(config: Config): Record<string, Record<string, unknown>> {
  const output: Record<string, Record<string, unknown>> = {};
  for (const { section, key, variable } of listVariables()) {
    const value = (config as Record<string, Record<string, unknown>>)[section]?.[key];
    output[section] ??= {};
    const empty = value === undefined || (Array.isArray(value) && value.length === 0);
    (output[section] as Record<string, unknown>)[key] = variable.secret
      ? empty
        ? null
        : '***'
      : (value ?? null);
  }
  return output;
}

/** Loads `.env` from the working directory into the environment when present (Node's own parser). */
export function loadDotEnv(path = '.env'): void {
  try {
    process.loadEnvFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

import { z } from 'zod';
import { AppError, invalid } from '../../domain/errors.js';

const projectText = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/**
 * The project a tool works on, named as the REST API names it: `project_id` (an id, or a name) or
 * `project_name`; neither means the default project "gpt". `project` is the name get_project and
 * export_project took before, still accepted.
 */
export const projectShape = {
  project_id: projectText
    .optional()
    .describe('Project id (a name works too); the default project "gpt" when no project is given.'),
  project_name: projectText.optional().describe('Project name; an alternative to project_id.'),
  project: projectText.optional().meta({ deprecated: true }).describe('Deprecated: same as project_id.'),
};

/**
 * The input schema of a tool that takes a project: `shape`, refusing any argument it does not name.
 * A misspelt or unsupported project argument used to be dropped, so the tool answered for the
 * default project "gpt" instead of the one the client named (0049); now the call fails naming it.
 */
export function strictInput<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown argument ${issue.keys.map((key) => `"${key}"`).join(', ')}; this tool takes ${known || 'no arguments'}`
        : undefined,
  });
}

export interface ProjectArgs {
  project_id?: string | undefined;
  project_name?: string | undefined;
  project?: string | undefined;
}

/** The one project the arguments name, and the argument that named it (for errors). */
export function projectOf(args: ProjectArgs): { ref: string; param: string } {
  const given = (['project_id', 'project_name', 'project'] as const).flatMap((param) => {
    const value = args[param];
    return value === undefined ? [] : [{ param, ref: value }];
  });
  const [first, second] = given;
  if (!first) return { ref: 'gpt', param: 'project_id' };
  const other = given.find((item) => item.ref !== first.ref);
  if (second && other) {
    throw invalid(
      other.param,
      `${first.param} and ${other.param} name different projects ("${first.ref}", "${other.ref}"); give one of them`,
    );
  }
  return first;
}

/** A project error as the tool's argument names it (the REST path calls the project `id`). */
export function asArgumentError(error: unknown, param: string): unknown {
  if (!(error instanceof AppError) || error.param !== 'id') return error;
  return new AppError(error.code, error.message, {
    param,
    retryAfterSeconds: error.retryAfterSeconds,
    cause: error,
  });
}

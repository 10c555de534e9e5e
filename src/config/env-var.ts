import { z } from 'zod';

/**
 * One environment variable of the configuration: its name, schema, default (as the text one would
 * write in `.env`), description and whether it is a secret (redacted by `alexandria config`).
 */
export interface EnvVar<T> {
  name: string;
  schema: z.ZodType<T>;
  /** Default as env text; undefined when the variable is optional with no default. */
  defaultText: string | undefined;
  description: string;
  secret: boolean;
  /**
   * What a variable that is set but empty means, as env text; undefined: the same as unset (the
   * default). Only for a variable whose empty value meant something else before its default changed.
   */
  emptyText?: string | undefined;
}

export function envVar<S extends z.ZodType>(
  name: string,
  schema: S,
  options: { default?: string; description: string; secret?: boolean; empty?: string },
): EnvVar<z.output<S>> {
  return {
    name,
    schema: schema as unknown as z.ZodType<z.output<S>>,
    defaultText: options.default,
    description: options.description,
    secret: options.secret ?? false,
    emptyText: options.empty,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: a section holds variables of any value type
export type Section = Record<string, EnvVar<any>>;
export type SectionValues<S extends Section> = {
  [K in keyof S]: S[K] extends EnvVar<infer T> ? T : never;
};

/** "true"/"false"/"1"/"0"/"yes"/"no" (any case) as a boolean. */
export const booleanText = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'expected true or false' }))
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** A comma-separated list; blanks dropped. */
export const listText = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

export const positiveInt = z.coerce.number().int().positive();
export const nonNegativeInt = z.coerce.number().int().nonnegative();
export const optionalText = z.string().trim().min(1).optional();
export const urlText = z.url({ error: 'expected an absolute URL' });

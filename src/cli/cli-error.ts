/**
 * A mistake the person at the terminal can fix: printed as one `error: …` line (what is wrong and
 * what to do), never with a stack trace, and the process exits with `exitCode`.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

const heading =
  /^\s{0,3}(?:#{1,6}\s*)?(?:\*\*|__)?\s*(?:references|reference list|sources|bibliography|works cited|literature cited|citations)\s*:?\s*(?:\*\*|__)?\s*:?\s*$/i;
/** A line start that may still grow into such a heading: only letters, spaces and markup so far. */
const maybeHeading = /^[\s#*_]*[A-Za-z ]*[:*_]*$/;

/**
 * Drops a references section the model writes itself: from a line that is only a "References"
 * (or "Sources", "Bibliography") heading to the end. The answer's references list is composed from
 * the run's own records instead, so a model cannot list papers it never retrieved. Text streams
 * through; only the start of a line that could still become such a heading is held back.
 */
export class ReferencesGuard {
  private line = '';
  private midLine = false;
  private dropping = false;

  /** Whether a model-written references section was dropped. */
  get dropped(): boolean {
    return this.dropping;
  }

  push(text: string): string {
    let output = '';
    for (const character of text) {
      if (this.dropping) break;
      if (this.midLine) {
        output += character;
        if (character === '\n') this.midLine = false;
        continue;
      }
      this.line += character;
      if (character === '\n') {
        output += this.settle();
      } else if (this.line.length >= 40 || !maybeHeading.test(this.line)) {
        // Cannot be a heading any more: the rest of this line streams until the next newline.
        output += this.line;
        this.line = '';
        this.midLine = true;
      }
    }
    return output;
  }

  end(): string {
    return this.dropping ? '' : this.settle();
  }

  private settle(): string {
    const line = this.line;
    this.line = '';
    if (heading.test(line.replace(/\n$/, '')) && line.trim().length > 0) {
      this.dropping = true;
      return '';
    }
    return line;
  }
}

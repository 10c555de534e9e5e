import type {
  ParsedDocument,
  PdfExtractOptions,
  PdfExtractor,
  PdfRenderOptions,
  RenderedPage,
} from '../../src/ports/pdf-extractor.js';
import { FakePdfExtractor } from './fake-pdf-extractor.js';

/**
 * A PdfExtractor whose parses do not end until the test says so: each parse is named by the first
 * block of its fake PDF (see `fakePdf`) and held until `finish(name)`. Records the order parses
 * started in, so fairness tests need no clocks.
 */
export class HeldPdfExtractor implements PdfExtractor {
  /** Names of the parses in the order they started. */
  readonly started: string[] = [];
  private readonly inner = new FakePdfExtractor();
  private readonly held = new Map<string, () => void>();
  private readonly watchers: Array<{ count: number; done: () => void }> = [];

  /** Parses started and not yet finished. */
  get running(): string[] {
    return [...this.held.keys()];
  }

  async extract(bytes: Uint8Array, options?: PdfExtractOptions): Promise<ParsedDocument> {
    const name =
      Buffer.from(bytes)
        .toString('utf8')
        .replace(/^%PDF-[\d.]+\n?/, '')
        .split('\n')[0] ?? '';
    this.started.push(name);
    await new Promise<void>((release) => {
      this.held.set(name, release);
      for (const watcher of [...this.watchers]) {
        if (this.started.length >= watcher.count) {
          this.watchers.splice(this.watchers.indexOf(watcher), 1);
          watcher.done();
        }
      }
    });
    return this.inner.extract(bytes, options);
  }

  /** Resolves once `count` parses have started in all. */
  whenStarted(count: number): Promise<void> {
    if (this.started.length >= count) return Promise.resolve();
    return new Promise((done) => this.watchers.push({ count, done }));
  }

  /** Lets the held parse `name` end. */
  finish(name: string): void {
    const release = this.held.get(name);
    if (!release) throw new Error(`no parse named ${name} is running (running: ${this.running.join(', ')})`);
    this.held.delete(name);
    release();
  }

  /** Drawing is not held. */
  renderPage(bytes: Uint8Array, page: number, options: PdfRenderOptions): Promise<RenderedPage> {
    return this.inner.renderPage(bytes, page, options);
  }

  async close(): Promise<void> {}
}

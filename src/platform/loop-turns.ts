/**
 * Gives the event loop a turn during long synchronous work done in pieces: `due()` resolves at once
 * while the current slice is younger than `sliceMs`, and after a `setImmediate` (every request
 * waiting meanwhile is served) once it is older. A 50,000-entry document's passages took 3.4 s of
 * one event-loop turn before (decision 0042); in 10 ms slices other tenants' searches go between.
 */
export class LoopTurns {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = 10) {}

  /** Turns given to the event loop so far (tests count them). */
  given = 0;

  /** Waits for the event loop's next turn when this slice has run `sliceMs`. */
  async due(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.given += 1;
    this.sliceStart = performance.now();
  }
}

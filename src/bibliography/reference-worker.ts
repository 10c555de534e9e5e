/**
 * The reference-reading thread (piscina runs it; `worker-reference-reader.ts` sends the texts):
 * reads a reference list and its citing sentences away from the event loop.
 */
import { type ReferenceReading, readReferences } from './reference-reading.js';

/** The piscina entry point: the chunks' texts in, the reading out. */
export default function readReferencesTask(task: { texts: string[] }): ReferenceReading {
  return readReferences(task.texts.map((text) => ({ text })));
}

/**
 * Work this process has done since it started, counted as it happens and read by /metrics at scrape
 * time (`installWorkMetrics`), where each figure is a counter whose `rate()` is a throughput. Plain
 * numbers, so the code that counts needs no metrics library (decision 0051).
 */
export class WorkTally {
  /** PDFs parsed (a parse the cache answered is not one). */
  pdfDocumentsParsed = 0;
  /** Pages of the PDFs parsed. */
  pdfPagesParsed = 0;
  /** Index records given a vector (the background record-vector walk, decision 0036). */
  recordVectorsEmbedded = 0;
  /** Tokens the chat model generated (completion tokens as the model reports them, else estimated). */
  chatTokensGenerated = 0;
  /** Seconds spent in chat-model turns, from the request to the last token (prompt reading included). */
  chatTurnSeconds = 0;
  /** Chat-model turns that finished. */
  chatTurns = 0;
}

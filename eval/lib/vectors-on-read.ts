import {
  decodeRecordVector,
  encodeRecordVector,
} from '../../src/adapters/paper-index/record-vector-codec.js';
import type { SqlitePaperIndex } from '../../src/adapters/sqlite/sqlite-paper-index.js';
import type { EmbeddingModel } from '../../src/ports/embedding-model.js';
import type { PaperIndex } from '../../src/ports/paper-index.js';
import { recordVectorText } from '../../src/services/search/hybrid-rerank.js';

/**
 * An index whose every record has a vector, as if the background job had run to the end, but
 * computed only when a search asks for it: the records a query's BM25 candidates are. Vectors go
 * through the stored int8 form (what a search reads from the index) and the model is normally a
 * `MemoEmbeddingModel`, so each record is embedded once per machine. Searches then rank exactly as
 * over a fully embedded index, at the cost of the candidates only (the ACL corpus has 27 000
 * records; at 5–10 records/s a full pass would take an hour).
 */
export function vectorsOnRead(
  index: SqlitePaperIndex,
  model: EmbeddingModel,
): { index: PaperIndex; embedded(): number } {
  let embedded = 0;
  const recordVectors = async (_model: string, ids: readonly number[]) => {
    const papers = index.recordsOf(ids);
    const vectors = await model.embed(papers.map(recordVectorText));
    embedded += papers.length;
    return new Map(
      ids.map((id, position) => [
        id,
        decodeRecordVector(encodeRecordVector(vectors[position] as Float32Array)),
      ]),
    );
  };
  const proxy = new Proxy(index, {
    get(target, property, receiver) {
      if (property === 'recordVectors') return recordVectors;
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { index: proxy, embedded: () => embedded };
}

import type { ChunkRanker, RankedChunk } from '../../src/services/documents/full-text-service.js';

/** Ranks chunks by how many distinct question words they contain; records its calls. */
export class FakeChunkRanker implements ChunkRanker {
  readonly calls: Array<{ documentKey: string; question: string; topK: number }> = [];

  async rank(request: {
    documentKey: string;
    chunks: readonly string[];
    question: string;
    topK: number;
  }): Promise<RankedChunk[]> {
    this.calls.push({ documentKey: request.documentKey, question: request.question, topK: request.topK });
    const words = new Set(request.question.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
    return request.chunks
      .map((text, index) => {
        const present = new Set(text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
        return { index, score: [...words].filter((word) => present.has(word)).length };
      })
      .filter((item) => item.score > 0)
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, request.topK);
  }
}

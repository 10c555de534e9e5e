import { Tokenizer } from '@huggingface/tokenizers';

/**
 * A model's tokenizer with the truncation sentence-transformers applies: at most `maxSequence` ids
 * including the special tokens, cutting the text and keeping the special tokens around it. The
 * tokenizer.json of a Hub model may carry its own truncation/padding settings (MiniLM's says 128);
 * tokenizers.js ignores them, and so do we: the length limit is ours.
 */
export class TokenEncoder {
  private readonly tokenizer: Tokenizer;
  /** Special ids before and after the text (`[CLS]` and `[SEP]` for BERT, `<s>`/`</s>` for RoBERTa). */
  private readonly head: number[];
  private readonly tail: number[];

  constructor(
    tokenizerJson: object,
    tokenizerConfig: object,
    readonly maxSequence: number,
  ) {
    this.tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
    // Locate the text inside the post-processor's template by encoding a one-word probe.
    const body = this.tokenizer.encode('a', { add_special_tokens: false }).ids;
    const full = this.tokenizer.encode('a').ids;
    const start = body.length > 0 ? full.indexOf(body[0] as number) : 0;
    this.head = full.slice(0, Math.max(0, start));
    this.tail = full.slice(Math.max(0, start) + body.length);
  }

  /** Tokens of `text` without special tokens. */
  count(text: string): number {
    return text.length === 0 ? 0 : this.tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  }

  /** Longest text, in tokens without special tokens, that is not truncated. */
  get maxTextTokens(): number {
    return this.maxSequence - this.head.length - this.tail.length;
  }

  /** Ids of `text` with special tokens, truncated to `maxSequence` (or to `maxTokens` text tokens, if fewer). */
  encode(text: string, maxTokens = this.maxTextTokens): number[] {
    const ids = this.tokenizer.encode(text, { add_special_tokens: false }).ids;
    const limit = Math.max(1, Math.min(maxTokens, this.maxTextTokens));
    const kept = ids.length > limit ? ids.slice(0, limit) : ids;
    return [...this.head, ...kept, ...this.tail];
  }
}

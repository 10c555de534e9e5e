import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A LitQA2 question whose source paper is among the shared PDFs (`eval/pdf_qa`). */
export interface PdfQuestion {
  pdf_file: string;
  question: string;
  ideal: string;
  distractors: string[];
  key_passage: string;
}

export function loadPdfQuestions(sharedData: string): PdfQuestion[] {
  return readFileSync(join(sharedData, 'eval', 'pdf_qa', 'litqa2_pdf_questions.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as PdfQuestion);
}

/** The question as LitQA2 poses it to a model: followed by its answer options (sorted, so the right one has no fixed place). */
export function withOptions(question: PdfQuestion): string {
  return `${question.question} Options: ${[question.ideal, ...question.distractors].sort().join('; ')}.`;
}

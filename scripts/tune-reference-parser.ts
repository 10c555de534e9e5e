// Development figures for the reference parser (decision 0048), on the tuning split only: trains
// on three quarters of it and scores the held-out quarter, so rules and epochs are chosen without
// the reporting split. `npx tsx scripts/tune-reference-parser.ts [epochs] [--errors field]`.

import { labelled, readGold } from '../eval/lib/anystyle-gold.js';
import {
  type FieldValues,
  goldValues,
  normalise,
  type ScoredField,
  scoredFields,
} from '../eval/lib/reference-string-score.js';
import { predictedValues, scoreReferences } from '../eval/reference-strings.eval.js';
import { trainLabeller } from '../src/bibliography/reference-labeller.js';

const epochs = Number(process.argv[2] ?? 20);
const errorsOf = process.argv.includes('--errors') ? (process.argv.at(-1) as ScoredField) : null;
const tuning = readGold().filter((reference) => reference.split === 'tuning');
const train = tuning.filter((_, index) => index % 4 !== 0);
const held = tuning.filter((_, index) => index % 4 === 0);
const model = trainLabeller(train.map(labelled), { epochs, seed: 48, prune: 0.01 });
const scores = scoreReferences(held, model);
const line = scoredFields.map((field) => `${field} ${scores.accuracy[field].toFixed(3)}`).join('  ');
process.stdout.write(`epochs ${epochs}, held-out n ${scores.n}: ${line}  mean ${scores.mean.toFixed(3)}\n`);
if (errorsOf) {
  for (const reference of held) {
    const gold: FieldValues = goldValues(reference);
    const predicted = predictedValues(reference.text, model);
    if (normalise(errorsOf, gold[errorsOf]) !== normalise(errorsOf, predicted[errorsOf])) {
      process.stdout.write(
        `gold ${JSON.stringify(gold[errorsOf])}  got ${JSON.stringify(predicted[errorsOf])}\n    ${reference.text}\n`,
      );
    }
  }
}

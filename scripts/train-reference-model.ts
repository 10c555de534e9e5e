// Builds src/bibliography/reference-model.json, the weights of the reference labeller (decision 0048), from
// the tuning split of AnyStyle's labelled references (eval/references/anystyle-gold.xml). Run
// `npm run train:references`; the same data, epochs and seed give the same file byte for byte.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { labelled, readGold } from '../eval/lib/anystyle-gold.js';
import { trainLabeller } from '../src/bibliography/reference-labeller.js';

/** Passes over the data; chosen on a quarter of the tuning split held out (decision 0048). */
export const epochs = 20;
export const seed = 48;

const tuning = readGold().filter((reference) => reference.split === 'tuning');
const model = trainLabeller(tuning.map(labelled), { epochs, seed, prune: 0.01 });
const target = join(import.meta.dirname, '..', 'src', 'bibliography', 'reference-model.json');
writeFileSync(target, `${JSON.stringify(model)}\n`);
process.stdout.write(
  `${target}: ${tuning.length} references, ${model.labels.length} labels, ${Object.keys(model.weights).length} features\n`,
);

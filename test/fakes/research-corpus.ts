import type { Paper } from '../../src/domain/paper.js';
import { paper } from './agent-service-fakes.js';

/**
 * A small corpus for agent tests: three LitQA2 source papers (titles, DOIs and sentences from the
 * papers' own key passages) and one unrelated record. One paper has a readable full text.
 */
export const acinetobacter: Paper = paper({
  title: 'Differential development of antibiotic resistance and virulence between Acinetobacter species',
  authors: ['Emily A. Hartman', 'Gabriel Perez', 'Katherine M. Pezzullo'],
  year: 2024,
  publication_date: '2024-05-01',
  venue: 'mSphere',
  doi: '10.1128/msphere.00109-24',
  url: 'https://doi.org/10.1128/msphere.00109-24',
  pdf_id: 'PROJ:gpt/doc_msphere',
  abstract:
    'Acinetobacter baumannii is a major cause of hospital infections. We compared how A. baumannii and Acinetobacter lwoffii evolve under antibiotic selection in the lab. A. baumannii readily evolved resistance to meropenem, ciprofloxacin, and gentamicin, but A. lwoffii only evolved resistance to ciprofloxacin. Virulence traits differed between the species.',
});

export const glucokinase: Paper = paper({
  title: 'A comprehensive map of human glucokinase variant activity',
  authors: ['Sarah Gersing', 'Thea K. Schulze', 'Matteo Cagiada'],
  year: 2023,
  venue: 'Genome Biology',
  doi: '10.1186/s13059-023-02935-8',
  url: 'https://doi.org/10.1186/s13059-023-02935-8',
  abstract:
    'Glucokinase (GCK) regulates insulin secretion. We measured the activity of over 9000 GCK variants. Consistently, p.A456V shifted the equilibrium towards the super-open conformation according to our stability predictions.',
});

export const dps: Paper = paper({
  title: 'Bridging DNA contacts allow Dps from E. coli to condense DNA',
  authors: ['Thomas Dahlke'],
  year: 2024,
  venue: 'Nucleic Acids Research',
  doi: '10.1093/nar/gkae223',
  url: 'https://doi.org/10.1093/nar/gkae223',
  abstract:
    'Dps compacts DNA in starved E. coli cells. In single molecule assays supercoiled and doubly tethered DNA compacted most quickly upon interaction with Dps.',
});

export const unrelated: Paper = paper({
  title: 'A survey of parsing algorithms for natural language',
  authors: ['Ada Parser', 'Bob Grammar'],
  year: 2019,
  url: 'https://aclanthology.org/X19-0000',
  abstract: 'We survey chart parsing and transition-based parsing for natural language.',
});

export const researchPapers = [acinetobacter, glucokinase, dps, unrelated];

/** The chunks of the readable full text of `acinetobacter`. */
export const acinetobacterChunks = [
  '# Introduction\nAcinetobacter species differ in their clinical importance. Hospital outbreaks are mostly caused by A. baumannii.',
  '# Results\nWe passaged populations under increasing antibiotic concentrations. A. baumannii readily evolved resistance to meropenem, ciprofloxacin, and gentamicin, but A. lwoffii only evolved resistance to ciprofloxacin. Resistant A. lwoffii populations carried mutations in gyrA.',
  '# Discussion\nThe limited evolvability of A. lwoffii may explain its rarity in clinics.',
];

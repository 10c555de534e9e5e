/**
 * Whether the user's own message asks to save papers into their projects: the only thing that lets
 * the agent's `add_to_project` run (docs/decisions/0040). It reads the user's words, never the
 * model's or a paper's, and it is conservative: a message it is unsure of is not a request, and the
 * model is told to ask the user to say so.
 *
 * A clause (text between `, ; ! ?`, a full stop or colon, a dash and line breaks) is a request when
 * - it has a saving verb that no negation ("don't", "never", "without", "no need to") or question
 *   word ("how", "did", "should I", "which") comes before, and
 * - `save`, `bookmark`, `file` or `store` is followed by what to save (it, this, these, them, a
 *   paper, a PDF, a reference, a DOI or url) or by where; `add`, `put` or `import` by where (to my
 *   project, library, collection, reading list, Zotero, a folder) or by a DOI or url.
 * In German, French and Spanish, a clause must pair a verb with a project or library noun and
 * carry no negation or question word; any other language is not understood and so never a request.
 */
export function asksToSave(message: string): boolean {
  const text = message.normalize('NFKC').toLowerCase().replace(/[’‘`]/g, "'");
  return text
    .split(/[,;!?\n]+|[.:](?=\s|$)|\s[-–—]\s/)
    .some((clause) => englishRequest(clause) || otherLanguageRequest(clause));
}

// "the file", "a store" are nouns.
const saveVerbs =
  /(?<!\b(?:the|a|an|this|that|my|your|our|each|every|pdf|one)\s+)\b(save|bookmark|file|store)\b/;
const placeVerbs = /\b(add|put|import)\b/;
const negation =
  /\b(don't|dont|do not|does not|doesn't|didn't|never|not|no need to|without|stop|avoid|instead of)\b/;
const questionWords =
  /\b(how|why|when|whether|which|what|who|whom|whose|did|does|do (?:i|we|you|they)|should|would it|is|are|was|were|has|have|had|can i|could i|if)\b/;
const politeRequest = /\b(can|could|would|will) you\b|\bplease\b/;
const destination =
  /\b(?:to|in|into|under|on)\s+(?:(?:my|our|the|a|this|that|new|your)\s+)?(?:[\p{L}\p{N}'"“”_-]+\s+){0,3}?(?:projects?|library|libraries|collections?|reading list|folders?|bibliography|zotero)\b/u;
const thingToSave =
  /^\s*(?:(?:it|this|that|these|those|them|all|both|the|a|an|my|one|two|three|first|second|third|last|best|top)\b\s*)*(?:[\p{L}\p{N}-]+\s+){0,3}?(?:it|this|that|these|those|them|papers?|articles?|pdfs?|stud(?:y|ies)|references?|records?|documents?|preprints?|publications?|citations?|ones?)\b/u;
const identifierOrUrl = /^\s*(?:the\s+)?(?:https?:\/\/|pdf_url:|doi:|10\.\d{4,9}\/|arxiv:|pmid)/;

function englishRequest(clause: string): boolean {
  const verb = saveVerbs.exec(clause) ?? placeVerbs.exec(clause);
  if (!verb) return false;
  const before = clause.slice(0, verb.index);
  if (negation.test(before)) return false;
  // "Could you add …" is a request; "How do I add …", "Did you add …" are questions about it.
  if (questionWords.test(before.replace(politeRequest, ' '))) return false;
  const after = clause.slice(verb.index + verb[0].length);
  if (destination.test(after) || identifierOrUrl.test(after)) return true;
  return /^(save|bookmark|file|store)$/.test(verb[1] ?? '') && thingToSave.test(after);
}

/** Words of one language, each matched as a whole word (`\b` does not see accented letters). */
function words(list: string): RegExp {
  return new RegExp(`(?:^|[^\\p{L}])(?:${list})(?=$|[^\\p{L}])`, 'u');
}

const otherLanguages: Array<{ verb: RegExp; place: RegExp; refusal: RegExp }> = [
  {
    // German: "Füge das Paper meinem Projekt hinzu", "Speichere es in meiner Bibliothek".
    verb: words('speicher|speichere|speichern|speichert|füge|füg|hinzufügen|hinzu|lege|leg|ablegen'),
    place: words('projekt|projekte|projekten|projekts|bibliothek|sammlung|literaturliste'),
    refusal: words('nicht|nie|kein|keine|keinen|ohne|wie|warum|wieso|ob|hast|habe|soll|sollte|wurde|wurden'),
  },
  {
    // French: "Ajoute cet article à mon projet", "Enregistre-le dans ma bibliothèque".
    verb: words(
      'ajoute|ajouter|ajoutez|enregistre|enregistrer|enregistrez|sauvegarde|sauvegarder|sauvegardez|mets|mettez|mettre',
    ),
    place: words('projet|projets|bibliothèque|bibliothèques|collection|collections'),
    refusal: words('ne|n|pas|jamais|sans|comment|pourquoi|est-ce|si|as-tu|ai-je|dois-je|faut-il'),
  },
  {
    // Spanish: "Añade este artículo a mi proyecto", "Guárdalo en mi biblioteca".
    verb: words(
      'añade|añadir|añádelo|añádelos|agrega|agregar|agrégalo|agrégalos|guarda|guardar|guárdalo|guárdalos',
    ),
    place: words('proyecto|proyectos|biblioteca|bibliotecas|colección|colecciones'),
    refusal: words('no|nunca|sin|jamás|cómo|como|por qué|porqué|si|debo|debería|has|he'),
  },
];

/** A clause in German, French or Spanish that pairs a saving verb with a project or library. */
function otherLanguageRequest(clause: string): boolean {
  return otherLanguages.some(
    (language) => language.verb.test(clause) && language.place.test(clause) && !language.refusal.test(clause),
  );
}

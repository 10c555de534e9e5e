/**
 * Whether a user's message asks for a verdict (yes/no/maybe first) or not (a multiple-choice question
 * with lettered options, an open question, a request to find, list or summarise). Rules written from
 * what the forms mean, not fitted to a benchmark: measured on labelled questions by
 * `npm run eval -- verdict-classifier` (decision 0047).
 */

const optionLetters = 'ABCDEFG';

/** Words that ask to pick one option ("Which of these…", "Choose the letter…"). */
const choiceCue =
  /\b(?:which|choose|select|pick|correct (?:answer|option)|best (?:answer|option)|right (?:answer|option)|the letter)\b/i;

/**
 * Whether the message is a multiple-choice question: at least two lines that list options lettered
 * from A on ("(A) …", "A) …" or "A. …"), one a line, in order, each at most 300 characters, after a
 * question that asks to pick one — the text before the first option ends with "?" or the message
 * says which, choose, select, pick, or the correct/best answer. Lettered lines alone (an outline, a
 * list of points) are not a question.
 */
export function isMultipleChoice(message: string): boolean {
  const lines = message.split('\n');
  const options: string[] = [];
  let first = -1;
  for (const [index, line] of lines.entries()) {
    const match = /^\s*\(?([A-G])[).]\s+(\S.*?)\s*$/.exec(line);
    if (match?.[1] && match[1] === optionLetters[options.length]) {
      if (options.length === 0) first = index;
      options.push(match[2] ?? '');
    } else if (options.length > 0) {
      break;
    }
  }
  if (options.length < 2 || options.some((option) => option.length > 300)) return false;
  const question = lines.slice(0, first).join(' ').trim();
  return question.endsWith('?') || choiceCue.test(message);
}

/** Auxiliary verbs that open a yes/no question ("Is …?", "Does …?", "Can …?"). */
const auxiliary =
  /^(?:is|are|was|were|do|does|did|can|could|should|would|will|shall|has|have|had|may|might|must|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|can't|cannot|couldn't|shouldn't|wouldn't|won't|hasn't|haven't|hadn't)\b/i;

/**
 * Yes/no forms that are requests, not questions of fact: "Can you find…", "Could you list…",
 * "Would you summarise…", "Do you know/have…", "Is there any work on…", "Are there papers about…".
 * Their answer is papers or a text, not a verdict. "Is there evidence that…" stays a question.
 */
const request =
  /^(?:(?:can|could|would|will|won't|do|did)\s+(?:you|u)\b|(?:do|does)\s+(?:the\s+)?(?:authors?|you|they|anyone)\s+have\s+(?:any\s+)?(?:insights?|intuitions?|ideas?|thoughts|explanations?)\b|(?:can|could|may)\s+(?:i|we)\s+(?:get|have|see|find|ask)\b|(?:is|are)\s+there\s+(?:any\s+|some\s+|other\s+|more\s+|an?\s+)?(?:[\w-]+\s+){0,2}?(?:papers?|stud(?:y|ies)|works?|research|articles?|publications?|literature|surveys?|reviews?|datasets?|data|corpora|benchmarks?|tools?|resources?|libraries|implementations?|methods|approaches|examples?|references?|sources?)\b(?!\s+(?:that|which)\s+(?:show|prove|support|confirm|demonstrate))|do\s+(?:any|some)\s+(?:papers?|stud(?:y|ies)|works?|articles?)\s+(?:exist|discuss|cover|address)\b)/i;

/** An alternative question ("Is A or B better?"): asks which, not whether. */
const alternative = /\b(?:or|versus|vs\.?)\s+(?!not\b|no\b|even\b)\w+[^?]*\?$/i;

/** A title-form question with no verb, after a colon or comma: "X: a risk factor for Y?". */
const titleForm = /^(?:an?)\s+(?!(?:list|survey|review|summary|overview)\b)[^?]*\?$/i;

/** Wh-words: a question that opens with one is open, not yes/no. */
const whWord = /^(?:what|what's|which|who|whom|whose|where|when|why|how)\b/i;

/**
 * The questions of a message, in order: sentences ending in "?". A full stop ends a sentence only
 * before a capital (so "e.g.", "vs." and "A. baumannii" do not).
 */
function questionsOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=["'“(*_]*[\p{Lu}\d])/u)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.endsWith('?'));
}

/**
 * The question of a message that needs a verdict, or undefined. The message's first question (a
 * sentence ending in "?") is what it asks. It needs a verdict when that question, or its clause after
 * a colon, semicolon, dash or comma ("Adjuvant radiation of stage III thymoma: is it necessary?", "In
 * older patients, does X reduce Y?"), opens with an auxiliary verb, unless the question opens with a
 * wh-word, is a request phrased as a yes/no question ("Can you find…?", "Are there papers on…?") or
 * an alternative question ("Is A or B better?", or one followed by "Or …?"); or when it is a
 * title-form question ("X: a risk factor for Y?"); or when the message asks outright for yes or no,
 * "true or false", or "tell me whether…". A multiple-choice question (`isMultipleChoice`) gets no
 * verdict. Returns the question sentence itself (without format instructions).
 */
export function verdictQuestion(message: string): string | undefined {
  if (isMultipleChoice(message)) return undefined;
  const text = message.replace(/\s+/g, ' ').trim();
  const questions = questionsOf(text);
  // The first question is what the message asks; later ones elaborate it ("Why or why not?").
  const question = questions[0];
  if (question) {
    const clauses = [question, ...question.split(/[:;—–,]\s+|\s-\s/).slice(1)].map((clause) =>
      clause
        .trim()
        .replace(/^[("'“*_]+/, '')
        .replace(/^(?:but|and|so|then|if so)\s+/i, ''),
    );
    const opening = clauses.find((clause) => auxiliary.test(clause));
    const followedByOr = /^or\b/i.test(questions[1] ?? '');
    if (opening && !whWord.test(question)) {
      if (request.test(opening)) {
        // "Can you tell me whether X?" asks for a verdict through a request.
        if (/\b(?:whether|if)\b/i.test(opening) && /\b(?:tell|know|check|say|confirm)\b/i.test(opening))
          return question;
      } else if (!followedByOr && !(alternative.test(opening) && !/\bor not\b/i.test(opening))) {
        return question;
      }
    } else if (
      !opening &&
      !whWord.test(question) &&
      clauses.slice(1).some((clause) => titleForm.test(clause))
    ) {
      return question;
    }
  }
  if (questions.length > 0 && /\byes\b[^.?!]{0,20}\bno\b/i.test(text)) return questions[0];
  if (/^true or false\b/i.test(text)) return text;
  const whether =
    /\b(?:tell me|I (?:want|would like|need) to know|I wonder|check|find out)\s+(?:whether|if)\b[^.?!]*[.?!]?/i.exec(
      text,
    );
  return whether?.[0].trim();
}

/**
 * The label a caption prints for its figure or table: "Figure 6", "Fig. S2", "FIG 1", "Table 3",
 * "TABLE IV", "Extended Data Fig. 2", "Supplementary Figure 4", "Scheme 1", "Abb. 3". A figure is
 * named by this label, as the paper names it; the order images were extracted in is only a
 * fallback for images without a caption (decision 0050).
 */
// Capitalised: a line that starts "figure 3, the …" is a sentence wrapped mid-way, not a caption.
const labelWord =
  'Figure|FIGURE|Fig\\.?|FIG\\.?|Table|TABLE|Tab\\.|TAB\\.|Scheme|SCHEME|Chart|CHART|Plate|PLATE|Abb\\.|ABB\\.|Abbildung|ABBILDUNG|Tabelle|TABELLE';
const labelPrefix =
  '(?:Extended\\s+Data|EXTENDED\\s+DATA|Supplementary|SUPPLEMENTARY|Suppl\\.|Supporting)\\s+';
// Case matters in the number: "Table IV" and "Fig. S2" are labels, "Table is" is not.
const labelNumber = '(?:[A-Z]\\s?)?(?:\\d{1,3}(?:\\.\\d{1,2})?|[IVX]{1,6})[a-zA-Z]?';
const labelPattern = new RegExp(
  `^((?:${labelPrefix}(?:${labelWord}|figure|fig\\.?|table)|${labelWord})\\s*${labelNumber})(?![\\p{L}\\d])`,
  'u',
);

/** The printed label at the start of a caption, spaces normalised; undefined when it opens with none. */
export function captionLabel(caption: string): string | undefined {
  const match = labelPattern.exec(caption.trimStart());
  // "Figure 1." / "Figure 1:" — the punctuation after the number is the caption's, not the label's.
  return match?.[1]?.replace(/\s+/g, ' ').replace(/\.$/, '');
}

/** The caption's words after its label and the punctuation that follows it ("Figure 3: A plot" → "A plot"). */
export function captionWords(caption: string): string {
  const match = labelPattern.exec(caption.trimStart());
  const rest = match ? caption.trimStart().slice(match[0].length) : caption;
  return rest.replace(/^\s*[.:|\u2013\u2014-]?\s*/, '');
}

/** Whether a line opens a caption: a label, then the end, punctuation or a space. */
export function startsCaption(line: string): boolean {
  return captionLabel(line) !== undefined;
}

/** Tables print their caption above them, figures below: which side to look on first. */
export function labelKind(label: string): 'table' | 'figure' {
  return /^(?:(?:extended\s+data|supplementary|suppl\.|supporting)\s+)?(?:table|tab\.|tabelle)/i.test(label)
    ? 'table'
    : 'figure';
}

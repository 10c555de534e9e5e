import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** An XML element: name, attributes and ordered children (text stays in place for mixed content). */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: (XmlElement | string)[];
}

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

// preserveOrder keeps mixed content (`<AbstractText>Gene <i>x</i> is…`) in order; the default
// mode of fast-xml-parser would move inline text around (see STACK.md §10).
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  // Entities are decoded by `textOf` in one pass: the parser's own decoding runs one regex per known
  // entity over every text node and tripled the parse time of USPTO records.
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Atom's `arxiv:doi` becomes `doi`: readers match local names.
  removeNSPrefix: true,
  // Tag paths are only needed for stopNodes/isArray callbacks, which we do not use; computing them
  // doubled the parse time.
  jPath: false,
});

/**
 * Parses one record element (as `splitXmlRecords` yields it) into a tree. Throws with the parser's
 * message when the record is not well-formed XML.
 */
export function parseXmlRecord(xml: string): XmlElement {
  const validation = XMLValidator.validate(xml, { allowBooleanAttributes: true });
  if (validation !== true) {
    throw new Error(`malformed XML: ${validation.err.msg} (line ${validation.err.line})`);
  }
  const nodes = parser.parse(xml) as OrderedNode[];
  const root = nodes.map(toElement).find((node): node is XmlElement => typeof node !== 'string');
  if (!root) throw new Error('no element in record');
  return root;
}

function toElement(node: OrderedNode): XmlElement | string {
  for (const key of Object.keys(node)) {
    if (key === ':@') continue;
    const value = node[key];
    if (key === '#text') return String(value);
    const children = Array.isArray(value) ? (value as OrderedNode[]).map(toElement) : [];
    return { name: key, attributes: decodeAttributes(node[':@']), children };
  }
  return '';
}

function decodeAttributes(attributes: Record<string, string> | undefined): Record<string, string> {
  if (!attributes) return {};
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes)) decoded[name] = decodeEntities(String(value));
  return decoded;
}

/** Child elements of that name (all child elements when no name is given). */
export function childrenOf(element: XmlElement | undefined, name?: string): XmlElement[] {
  if (!element) return [];
  return element.children.filter(
    (child): child is XmlElement => typeof child !== 'string' && (name === undefined || child.name === name),
  );
}

/** The first element along a path of child names (`find(root, 'MedlineCitation', 'Article')`). */
export function find(element: XmlElement | undefined, ...path: string[]): XmlElement | undefined {
  let current = element;
  for (const name of path) {
    current = current?.children.find(
      (child): child is XmlElement => typeof child !== 'string' && child.name === name,
    );
    if (!current) return undefined;
  }
  return current;
}

/** Every element along a path whose last step may match many (`findAll(root, 'AuthorList', 'Author')`). */
export function findAll(element: XmlElement | undefined, ...path: string[]): XmlElement[] {
  const last = path.at(-1);
  if (last === undefined) return [];
  return childrenOf(find(element, ...path.slice(0, -1)), last);
}

/** The first descendant of that name, depth first (for fields whose depth varies between versions). */
export function descendant(element: XmlElement | undefined, name: string): XmlElement | undefined {
  if (!element) return undefined;
  for (const child of element.children) {
    if (typeof child === 'string') continue;
    if (child.name === name) return child;
    const found = descendant(child, name);
    if (found) return found;
  }
  return undefined;
}

/**
 * The text of an element with inline markup flattened (`Gene <i>x</i>` → `Gene x`) and the
 * ISO/SGML entities of USPTO and PubMed decoded; not trimmed (the caller cleans white space).
 */
export function textOf(element: XmlElement | string | undefined): string {
  if (element === undefined) return '';
  if (typeof element === 'string') return decodeEntities(element);
  let text = '';
  for (const child of element.children) text += textOf(child);
  return text;
}

/** Named entities that are not XML's five nor numeric, as USPTO (ISO 8879) and older feeds write them. */
const namedEntities: Record<string, string> = {
  lsqb: '[',
  rsqb: ']',
  lcub: '{',
  rcub: '}',
  ldquo: '\u201c',
  rdquo: '\u201d',
  lsquo: '\u2018',
  rsquo: '\u2019',
  apos: "'",
  quot: '"',
  deg: '\u00b0',
  minus: '\u2212',
  mdash: '\u2014',
  ndash: '\u2013',
  times: '\u00d7',
  divide: '\u00f7',
  equals: '=',
  plus: '+',
  plusmn: '\u00b1',
  emsp: ' ',
  ensp: ' ',
  thinsp: ' ',
  nbsp: ' ',
  infin: '\u221e',
  yen: '\u00a5',
  pound: '\u00a3',
  cent: '\u00a2',
  sect: '\u00a7',
  para: '\u00b6',
  micro: '\u00b5',
  middot: '\u00b7',
  bull: '\u2022',
  hellip: '\u2026',
  le: '\u2264',
  ge: '\u2265',
  ne: '\u2260',
  ap: '\u2248',
  sim: '\u223c',
  larr: '\u2190',
  rarr: '\u2192',
  uarr: '\u2191',
  darr: '\u2193',
  reg: '\u00ae',
  copy: '\u00a9',
  trade: '\u2122',
  percnt: '%',
  num: '#',
  dollar: '$',
  ast: '*',
  commat: '@',
  excl: '!',
  quest: '?',
  verbar: '|',
  sol: '/',
  bsol: '\\',
  lowbar: '_',
  circ: '^',
  agr: '\u03b1',
  bgr: '\u03b2',
  ggr: '\u03b3',
  dgr: '\u03b4',
  egr: '\u03b5',
  zgr: '\u03b6',
  eegr: '\u03b7',
  thgr: '\u03b8',
  igr: '\u03b9',
  kgr: '\u03ba',
  lgr: '\u03bb',
  mgr: '\u03bc',
  ngr: '\u03bd',
  xgr: '\u03be',
  ogr: '\u03bf',
  pgr: '\u03c0',
  rgr: '\u03c1',
  sgr: '\u03c3',
  tgr: '\u03c4',
  ugr: '\u03c5',
  phgr: '\u03c6',
  khgr: '\u03c7',
  psgr: '\u03c8',
  ohgr: '\u03c9',
  Agr: '\u0391',
  Bgr: '\u0392',
  Ggr: '\u0393',
  Dgr: '\u0394',
  Egr: '\u0395',
  THgr: '\u0398',
  Lgr: '\u039b',
  PIgr: '\u03a0',
  Sgr: '\u03a3',
  PHgr: '\u03a6',
  PSgr: '\u03a8',
  OHgr: '\u03a9',
  alpha: '\u03b1',
  beta: '\u03b2',
  gamma: '\u03b3',
  delta: '\u03b4',
  epsilon: '\u03b5',
  lambda: '\u03bb',
  mu: '\u03bc',
  pi: '\u03c0',
  sigma: '\u03c3',
  tau: '\u03c4',
  phi: '\u03c6',
  omega: '\u03c9',
  Delta: '\u0394',
  Phi: '\u03a6',
  Omega: '\u03a9',
  Sigma: '\u03a3',
  szlig: '\u00df',
  aelig: '\u00e6',
  AElig: '\u00c6',
  oslash: '\u00f8',
  Oslash: '\u00d8',
  eth: '\u00f0',
  thorn: '\u00fe',
  inodot: '\u0131',
};

const entityPattern = /&(#\d{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,9});/g;
const xmlEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** ISO Latin accents (`&eacute;`, `&Ouml;`, `&ccedil;`) as combining marks on their base letter. */
const accents: Record<string, string> = {
  acute: '\u0301',
  grave: '\u0300',
  uml: '\u0308',
  circ: '\u0302',
  tilde: '\u0303',
  cedil: '\u0327',
  ring: '\u030a',
  caron: '\u030c',
  macr: '\u0304',
  breve: '\u0306',
  dot: '\u0307',
  ogon: '\u0328',
};
const accentPattern = /^([A-Za-z])(acute|grave|uml|circ|tilde|cedil|ring|caron|macr|breve|dot|ogon)$/;

/**
 * Decodes character references (`&#945;`, `&#x3B1;`), XML's five entities, the named entities above
 * and accented letters, in one pass (so `&amp;lt;` becomes the text `&lt;`); unknown ones stay.
 */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(entityPattern, (whole, name: string) => {
    if (name.charCodeAt(0) === 0x23) {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const known = xmlEntities[name] ?? namedEntities[name];
    if (known !== undefined) return known;
    const accent = accentPattern.exec(name);
    return accent ? `${accent[1]}${accents[accent[2] as string]}`.normalize('NFC') : whole;
  });
}

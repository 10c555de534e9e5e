import type { ComponentChild } from 'preact';

/**
 * A readable rendering of the little TeX answers contain (`\(x^2 \leq \alpha\)`): Greek letters and
 * operators as Unicode, `^`/`_` as superscripts/subscripts, `\frac{a}{b}` as a/b, font commands
 * dropped. Not a typesetter (no KaTeX: its weight buys nothing for the odd formula); what it cannot
 * render stays as its command name, never as backslash noise. The source is kept in `title`.
 */
const symbols: Record<string, string> = {
  alpha: 'α',
  beta: 'β',
  gamma: 'γ',
  delta: 'δ',
  epsilon: 'ε',
  varepsilon: 'ε',
  zeta: 'ζ',
  eta: 'η',
  theta: 'θ',
  kappa: 'κ',
  lambda: 'λ',
  mu: 'μ',
  nu: 'ν',
  xi: 'ξ',
  pi: 'π',
  rho: 'ρ',
  sigma: 'σ',
  tau: 'τ',
  phi: 'φ',
  varphi: 'φ',
  chi: 'χ',
  psi: 'ψ',
  omega: 'ω',
  Gamma: 'Γ',
  Delta: 'Δ',
  Theta: 'Θ',
  Lambda: 'Λ',
  Pi: 'Π',
  Sigma: 'Σ',
  Phi: 'Φ',
  Psi: 'Ψ',
  Omega: 'Ω',
  times: '×',
  cdot: '·',
  pm: '±',
  div: '÷',
  leq: '≤',
  le: '≤',
  geq: '≥',
  ge: '≥',
  neq: '≠',
  ne: '≠',
  approx: '≈',
  sim: '∼',
  equiv: '≡',
  mid: '∣',
  propto: '∝',
  infty: '∞',
  sum: '∑',
  prod: '∏',
  int: '∫',
  partial: '∂',
  nabla: '∇',
  in: '∈',
  notin: '∉',
  subset: '⊂',
  subseteq: '⊆',
  cup: '∪',
  cap: '∩',
  forall: '∀',
  exists: '∃',
  neg: '¬',
  wedge: '∧',
  land: '∧',
  vee: '∨',
  lor: '∨',
  to: '→',
  rightarrow: '→',
  leftarrow: '←',
  Rightarrow: '⇒',
  Leftarrow: '⇐',
  leftrightarrow: '↔',
  mapsto: '↦',
  ldots: '…',
  cdots: '⋯',
  dots: '…',
  circ: '∘',
  prime: '′',
  quad: '\u2003',
  qquad: '\u2003\u2003',
  left: '',
  right: '',
  displaystyle: '',
};

/** Commands whose argument is shown as is (fonts, text, decorations). */
const passThrough = new Set([
  'text',
  'textrm',
  'textbf',
  'textit',
  'mathrm',
  'mathbf',
  'mathit',
  'mathsf',
  'mathtt',
  'mathcal',
  'mathbb',
  'boldsymbol',
  'operatorname',
  'hat',
  'bar',
  'tilde',
  'vec',
  'overline',
]);

class TexReader {
  private position = 0;
  private key = 0;

  constructor(private readonly source: string) {}

  /** Everything up to the end or the closing brace of the current group. */
  sequence(nested = false): ComponentChild[] {
    const nodes: ComponentChild[] = [];
    let text = '';
    const flush = () => {
      if (text) nodes.push(text);
      text = '';
    };
    while (this.position < this.source.length) {
      const char = this.source[this.position] ?? '';
      if (char === '}') {
        this.position++;
        // An unbalanced closing brace at the top is dropped, not the end of the formula.
        if (nested) break;
        continue;
      }
      if (char === '^' || char === '_') {
        flush();
        this.position++;
        const Tag = char === '^' ? 'sup' : 'sub';
        nodes.push(<Tag key={this.key++}>{this.argument()}</Tag>);
      } else if (char === '\\' || char === '{') {
        flush();
        nodes.push(...this.argument());
      } else {
        text += char === '~' ? '\u00a0' : char === '&' ? ' ' : char;
        this.position++;
      }
    }
    flush();
    return nodes;
  }

  /** One argument: a {group}, a command, or a single character. */
  private argument(): ComponentChild[] {
    while (this.source[this.position] === ' ') this.position++;
    const char = this.source[this.position];
    if (char === undefined) return [];
    this.position++;
    if (char === '{') return this.sequence(true);
    if (char !== '\\') return [char];
    const name = /^[A-Za-z]+|^./s.exec(this.source.slice(this.position))?.[0] ?? '';
    this.position += name.length;
    if (passThrough.has(name)) return this.argument();
    if (name === 'frac' || name === 'dfrac' || name === 'tfrac') {
      const over = this.argument();
      const under = this.argument();
      return [...grouped(over), '/', ...grouped(under)];
    }
    if (name === 'sqrt') return ['√', ...grouped(this.argument())];
    if (name in symbols) return [symbols[name] ?? ''];
    if (/^[A-Za-z]+$/.test(name)) return [name];
    // \, \; \! \\ are spacing; any other escaped character stands for itself.
    return [/[,;:! \\]/.test(name) ? ' ' : name];
  }
}

/** Parentheses around a fraction's part when it is more than one character. */
function grouped(nodes: ComponentChild[]): ComponentChild[] {
  const single = nodes.length === 1 && typeof nodes[0] === 'string' && nodes[0].trim().length <= 1;
  return single ? nodes : ['(', ...nodes, ')'];
}

/** A formula as elements: inline (`\(…\)`) or on its own line (`\[…\]`, `$$…$$`). */
export function TexFormula({ tex, display }: { tex: string; display: boolean }) {
  const nodes = new TexReader(tex.trim()).sequence();
  return (
    <span class={display ? 'math display' : 'math'} title={tex.trim()} data-tex={tex.trim()}>
      {nodes}
    </span>
  );
}

/** One way of writing a request target for a path, named for the failure message. */
export interface Spelling {
  kind: string;
  target: string;
}

const samples: Record<string, string> = {
  id: 'gpt',
  paper: 'doc_0123456789abcdef01234567',
  model: 'alexandria-research',
  sha256: 'a'.repeat(64),
  file: 'figure-1.png',
};

/** A concrete path for a route template: each `:param` replaced by a plausible value, `*` by a file name. */
export function samplePath(template: string): string {
  return template
    .replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => samples[name] ?? `sample-${name}`)
    .replace(/\*/g, 'index.html');
}

const hex = (character: string, upper: boolean) => {
  const code = character.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${upper ? code.toUpperCase() : code}`;
};

/** Every index of `path` holding a character of `pattern`. */
function positions(path: string, pattern: RegExp): number[] {
  return [...path].flatMap((character, index) => (pattern.test(character) ? [index] : []));
}

function replaceAt(path: string, index: number, text: string): string {
  return path.slice(0, index) + text + path.slice(index + 1);
}

/**
 * The spellings of one path (`/api/projects/gpt`) that a client can put on a request line and some
 * server, proxy or router may read as the same path: every single letter, digit or punctuation
 * percent-encoded (lower- and upper-case hex), everything encoded, letter case changed, slashes
 * doubled, dot segments (plain and encoded), `;` parameters, `/` written `%2F` or `\`, a trailing
 * slash, a query or fragment, and the absolute form `http://host/path` (RFC 9112 §3.2.2, which a
 * server must accept). The canonical spelling comes first.
 */
export function spellingsOf(path: string): Spelling[] {
  const spellings: Spelling[] = [{ kind: 'canonical', target: path }];
  const add = (kind: string, target: string) => spellings.push({ kind, target });
  const segments = path.split('/').slice(1);
  const slashes = positions(path, /\//).filter((index) => index > 0);

  for (const index of positions(path, /[^/]/)) {
    const character = path[index] as string;
    add(`encoded ${character}`, replaceAt(path, index, hex(character, false)));
    if (/[a-f]/i.test(character.charCodeAt(0).toString(16))) {
      add(`encoded ${character} (upper-case hex)`, replaceAt(path, index, hex(character, true)));
    }
  }
  add(
    'every character encoded',
    path.replace(/[^/]/g, (character) => hex(character, true)),
  );
  add(
    'every letter encoded',
    path.replace(/[A-Za-z]/g, (character) => hex(character, false)),
  );

  add('upper case', path.toUpperCase());
  add('first segment upper case', `/${[segments[0]?.toUpperCase(), ...segments.slice(1)].join('/')}`);
  add(
    'capitalised segments',
    `/${segments.map((segment) => segment.charAt(0).toUpperCase() + segment.slice(1)).join('/')}`,
  );

  add('leading double slash', `/${path}`);
  for (const index of slashes) add(`double slash at ${index}`, replaceAt(path, index, '//'));
  add('trailing slash', `${path}/`);
  add('trailing double slash', `${path}//`);

  add('leading dot segment', `/.${path}`);
  add('leading dot-dot segment', `/..${path}`);
  add('leading encoded dot segment', `/%2e${path}`);
  for (const index of slashes) {
    add(`dot segment at ${index}`, replaceAt(path, index, '/./'));
    add(`dot-dot segment at ${index}`, replaceAt(path, index, '/x/../'));
    add(`encoded dot-dot segment at ${index}`, replaceAt(path, index, '/x/%2e%2e/'));
    add(`%2F at ${index}`, replaceAt(path, index, '%2F'));
    add(`%2f at ${index}`, replaceAt(path, index, '%2f'));
    add(`backslash at ${index}`, replaceAt(path, index, '\\'));
    add(`%5C at ${index}`, replaceAt(path, index, '%5C'));
  }
  add('trailing dot segment', `${path}/.`);
  add('first slash as %2F', `%2F${path.slice(1)}`);

  segments.forEach((_segment, which) => {
    const withParameter = segments.map((segment, index) => (index === which ? `${segment};x=1` : segment));
    add(`; parameter on segment ${which + 1}`, `/${withParameter.join('/')}`);
  });
  add('; alone at the end', `${path};`);

  add('empty query', `${path}?`);
  add('fragment', `${path}#x`);
  add('encoded NUL at the end', `${path}%00`);
  add('encoded space at the end', `${path}%20`);

  add('absolute form', `http://x${path}`);
  add('absolute form, upper case scheme and host', `HTTP://X${path}`);
  add('absolute form, https with a port', `https://127.0.0.1:1${path}`);
  add('absolute form with user info', `http://user@x${path}`);
  add('absolute form, first letter encoded', `http://x${replaceAt(path, 1, hex(path[1] ?? 'a', false))}`);
  add('absolute form, double slash', `http://x/${path}`);
  return spellings;
}

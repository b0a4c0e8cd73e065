/**
 * A small, forgiving HTML tokenizer and entity decoder for `fetch_url` (no HTML parser is a dependency of
 * the runtime). It yields start tags with attributes, end tags and text; comments, doctypes, CDATA and
 * processing instructions are skipped; the content of raw-text elements (script, style, textarea, title…)
 * is one text token up to its own end tag, so `if (a<b)` inside a script never looks like a tag.
 * Linear in the input: every scan moves forward with indexOf or sticky regular expressions.
 */

export type HtmlToken =
  | { type: 'text'; text: string }
  | { type: 'start'; name: string; attrs: Record<string, string>; selfClosing: boolean }
  | { type: 'end'; name: string };

/** Elements whose content is raw text up to their end tag. */
const RAW_TEXT = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'noscript',
]);

const TAG_NAME = /[a-zA-Z][^\s/>]*/y;
const END_TAG = /<\/([a-zA-Z][^\s/>]*)[^>]*>/y;
const ATTR_NAME = /[^\s/>=][^\s/>=]*/y;
const UNQUOTED = /[^\s>]*/y;
const SPACE = /[\s/]*/y;

/** Splits HTML into tokens. Never throws; malformed markup degrades to text or is dropped at the end. */
export function tokenizeHtml(html: string): HtmlToken[] {
  const tokens: HtmlToken[] = [];
  const n = html.length;
  let i = 0;
  const text = (from: number, to: number) => {
    if (to > from) tokens.push({ type: 'text', text: html.slice(from, to) });
  };
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      text(i, n);
      break;
    }
    text(i, lt);
    const next = html[lt + 1];
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end === -1 ? n : end + 3;
    } else if (next === '!' || next === '?') {
      const end = html.indexOf('>', lt);
      i = end === -1 ? n : end + 1;
    } else if (next === '/') {
      END_TAG.lastIndex = lt;
      const match = END_TAG.exec(html);
      if (match) {
        tokens.push({ type: 'end', name: match[1]!.toLowerCase() });
        i = END_TAG.lastIndex;
      } else {
        const end = html.indexOf('>', lt);
        i = end === -1 ? n : end + 1; // `</ >` and friends: dropped, as browsers do
      }
    } else if (next !== undefined && /[a-zA-Z]/.test(next)) {
      i = startTag(html, lt + 1, tokens);
    } else {
      text(lt, lt + 1);
      i = lt + 1;
    }
  }
  return tokens;
}

/** Reads a start tag from just after `<`; returns the index after it (and after raw text, if any). */
function startTag(html: string, from: number, tokens: HtmlToken[]): number {
  TAG_NAME.lastIndex = from;
  const name = TAG_NAME.exec(html)![0].toLowerCase();
  let i = TAG_NAME.lastIndex;
  const attrs: Record<string, string> = Object.create(null);
  let selfClosing = false;
  for (;;) {
    SPACE.lastIndex = i;
    const space = SPACE.exec(html)![0];
    selfClosing = space.endsWith('/');
    i = SPACE.lastIndex;
    if (i >= html.length) return html.length; // an unterminated tag is dropped
    if (html[i] === '>') break;
    ATTR_NAME.lastIndex = i;
    const attr = ATTR_NAME.exec(html);
    if (!attr) {
      i += 1;
      continue;
    }
    i = ATTR_NAME.lastIndex;
    let value = '';
    let j = i;
    while (j < html.length && /\s/.test(html[j]!)) j += 1;
    if (html[j] === '=') {
      j += 1;
      while (j < html.length && /\s/.test(html[j]!)) j += 1;
      const quote = html[j];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, j + 1);
        value = html.slice(j + 1, close === -1 ? html.length : close);
        i = close === -1 ? html.length : close + 1;
      } else {
        UNQUOTED.lastIndex = j;
        value = UNQUOTED.exec(html)![0];
        i = UNQUOTED.lastIndex;
      }
    }
    const key = attr[0].toLowerCase();
    if (!Object.hasOwn(attrs, key)) attrs[key] = decodeEntities(value);
  }
  i += 1; // past '>'
  tokens.push({ type: 'start', name, attrs, selfClosing });
  if (!RAW_TEXT.has(name)) return i;
  const close = new RegExp(`</${name}[\\s/>]`, 'ig');
  close.lastIndex = i;
  const found = close.exec(html);
  const end = found ? found.index : html.length;
  if (end > i) tokens.push({ type: 'text', text: html.slice(i, end) });
  tokens.push({ type: 'end', name });
  if (!found) return html.length;
  const gt = html.indexOf('>', end);
  return gt === -1 ? html.length : gt + 1;
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  times: '×',
  divide: '÷',
  deg: '°',
  para: '¶',
  sect: '§',
  shy: '',
  zwj: '',
  zwnj: '',
  auml: 'ä',
  ouml: 'ö',
  uuml: 'ü',
  Auml: 'Ä',
  Ouml: 'Ö',
  Uuml: 'Ü',
  szlig: 'ß',
  eacute: 'é',
  egrave: 'è',
  agrave: 'à',
  ccedil: 'ç',
};

/** Decodes numeric references and the common named ones; unknown names stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    /&(#[xX][0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z][a-zA-Z0-9]{1,31});?/g,
    (whole, body: string) => {
      if (body.startsWith('#')) {
        const code =
          body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
        const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
        return valid ? String.fromCodePoint(code) : '\ufffd';
      }
      return NAMED[body] ?? whole;
    },
  );
}

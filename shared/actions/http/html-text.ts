/**
 * HTML → readable text for `fetch_url`: scripts, styles, navigation, embedded objects and hidden elements
 * are dropped; headings (`#`), paragraphs, list items (`-` / `1.`), table rows (`a | b`) and preformatted
 * text are kept; a link keeps its text followed by its absolute URL in parentheses.
 *
 * Parsing is htmlparser2's (a maintained, forgiving, linear-time parser): it decodes entities (the full
 * HTML table) in text and attributes, treats script/style/title/textarea content as raw text, and closes
 * what HTML closes implicitly (`<p>` before `<p>`, `<li>` before `<li>`, void elements, everything open at
 * the end), so every opened element is closed exactly once and a dropped one is skipped by depth alone.
 */
import { Parser } from 'htmlparser2';
import { TextBuilder } from './text-builder.ts';

/** Elements dropped with everything inside them. */
const DROPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'nav',
  'iframe',
  'object',
  'canvas',
  'select',
  'textarea',
  'button',
  'dialog',
]);

const BLANK_LINE = new Set([
  'p',
  'blockquote',
  'pre',
  'table',
  'figure',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'aside',
  'address',
  'hr',
]);
const LINE = new Set([
  'div',
  'dt',
  'dd',
  'tr',
  'br',
  'caption',
  'summary',
  'details',
  'form',
  'fieldset',
  'figcaption',
  'legend',
  'body',
]);

/**
 * Elements nest at most this deep; a page that nests deeper is read up to there. htmlparser2 keeps its open
 * elements in an array it shifts at the front, so each tag costs time in proportion to the depth: the limit
 * keeps a hostile page (a megabyte of `<div>`) linear. Chromium's parser caps the tree depth at 512 too.
 */
export const MAX_HTML_DEPTH = 512;

/** The line that ends the text of a page cut at `MAX_HTML_DEPTH`. */
export const TOO_DEEP_NOTE = `[the page nests elements more than ${MAX_HTML_DEPTH} deep; the rest is left out]`;

/** A page as text, with its title. */
export type HtmlText = { title: string | undefined; text: string };

type Anchor = { href: string | undefined; text: string };

type Attributes = Record<string, string>;

/** Reduces an HTML document to text; `baseUrl` makes relative links absolute. */
export function htmlToText(html: string, baseUrl?: string): HtmlText {
  const out = new TextBuilder();
  const lists: { ordered: boolean; count: number }[] = [];
  const anchors: Anchor[] = [];
  // Inside a dropped element: how many of its elements (itself included) are open.
  let skipDepth = 0;
  let title: string | undefined;
  let inTitle = false;
  let pre = 0;
  let firstCell = true;
  let base = baseUrl;
  let depth = 0;
  let tooDeep = false;

  const emit = (text: string) => {
    if (pre > 0) out.pre(text);
    else out.inline(text);
    for (const anchor of anchors) anchor.text += text;
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (++depth > MAX_HTML_DEPTH) {
          tooDeep = true;
          parser.pause(); // never resumed: end() then emits nothing more
          return;
        }
        if (skipDepth > 0 || dropped(name, attrs)) {
          skipDepth += 1;
          return;
        }
        if (name === 'base' && attrs.href) base = absolute(attrs.href, base) ?? base;
        opening(name, attrs);
      },
      onclosetag(name) {
        depth -= 1;
        if (skipDepth > 0) skipDepth -= 1;
        else closing(name);
      },
      ontext(text) {
        if (skipDepth > 0) return;
        if (inTitle) title = (title ?? '') + text;
        else emit(text);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  if (tooDeep) {
    out.break(2);
    out.lead(TOO_DEEP_NOTE);
  }
  return { title: title?.replace(/\s+/g, ' ').trim() || undefined, text: out.toString() };

  function opening(name: string, attrs: Attributes): void {
    const heading = /^h([1-6])$/.exec(name);
    if (heading) {
      out.break(2);
      out.lead(`${'#'.repeat(Number(heading[1]))} `);
    } else if (name === 'title') inTitle = true;
    else if (name === 'ul' || name === 'ol') {
      out.break(lists.length === 0 ? 2 : 1);
      lists.push({ ordered: name === 'ol', count: 0 });
    } else if (name === 'li') {
      const list = lists.at(-1);
      out.break(1);
      const indent = '  '.repeat(Math.max(0, lists.length - 1));
      out.lead(list?.ordered ? `${indent}${++list.count}. ` : `${indent}- `);
    } else if (name === 'tr') {
      out.break(1);
      firstCell = true;
    } else if (name === 'td' || name === 'th') {
      if (!firstCell) out.inline(' | ');
      firstCell = false;
    } else if (name === 'a') {
      anchors.push({ href: attrs.href === undefined ? undefined : absolute(attrs.href, base), text: '' });
    } else if (name === 'img') {
      const alt = attrs.alt?.trim();
      if (alt) emit(`[image: ${alt}]`);
    } else if (name === 'br') out.break(1);
    else if (name === 'hr') {
      out.break(2);
      out.lead('---');
      out.break(2);
    } else if (BLANK_LINE.has(name)) out.break(2);
    else if (LINE.has(name)) out.break(1);
    if (name === 'pre') pre += 1;
  }

  function closing(name: string): void {
    if (/^h[1-6]$/.test(name) || BLANK_LINE.has(name)) out.break(2);
    else if (name === 'ul' || name === 'ol') {
      lists.pop();
      out.break(lists.length === 0 ? 2 : 1);
    } else if (name === 'title') inTitle = false;
    else if (name === 'a') {
      const anchor = anchors.pop();
      const label = anchor?.text.replace(/\s+/g, ' ').trim() ?? '';
      if (anchor?.href && anchor.href !== label)
        out.inline(label ? ` (${anchor.href})` : `[link: ${anchor.href}]`);
    } else if (LINE.has(name) || name === 'li') out.break(1);
    if (name === 'pre' && pre > 0) pre -= 1;
  }
}

function dropped(name: string, attrs: Attributes): boolean {
  return DROPPED.has(name) || 'hidden' in attrs || attrs['aria-hidden'] === 'true' || attrs.type === 'hidden';
}

/** An absolute http(s) or mailto URL for a link, or undefined for in-page, script and data links. */
function absolute(href: string, base: string | undefined): string | undefined {
  const trimmed = href.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return undefined;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:'
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}

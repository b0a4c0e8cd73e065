import { describe, expect, it } from 'vitest';
import { htmlToText, MAX_HTML_DEPTH, TOO_DEEP_NOTE } from '../../shared/actions/http/html-text.ts';

const page = `<!doctype html>
<html><head><title> Team &amp; News </title>
<style>body { color: red } .secret { display: none }</style>
<script>if (a<b && c>d) { document.write("<p>injected</p>") }</script>
</head>
<body>
<nav><a href="/home">Home</a> <a href="/about">About</a></nav>
<!-- a comment with <p>markup</p> -->
<h1>Release notes</h1>
<p>Version <b>2.0</b> is   out.
It has <a href="/changes?x=1&amp;y=2">a changelog</a> and <a href="#top">a jump</a>.</p>
<ul><li>Faster</li><li>Smaller<ul><li>by 10&nbsp;%</li></ul></li></ul>
<ol><li>first</li><li>second</li></ol>
<div hidden><p>hidden text</p></div>
<span aria-hidden="true">decorative</span>
<table><tr><th>Name</th><th>Score</th></tr><tr><td>Ada</td><td>10</td></tr></table>
<pre>  line one
    line two</pre>
<noscript>Enable JavaScript</noscript>
<svg><title>icon</title><text>svg text</text></svg>
<p>Mail <a href="mailto:team@example.com">us</a>; <a href="javascript:alert(1)">click</a>; <img src="x.png" alt="a chart"></p>
<h2>Details &#8212; more&#x21;</h2>
</body></html>`;

describe('htmlToText', () => {
  it('keeps headings, paragraphs, list items, tables and preformatted text, and drops script, style, nav and hidden parts', () => {
    // Act
    const { title, text } = htmlToText(page, 'https://news.example.com/blog/post.html');

    // Assess
    expect(title).toBe('Team & News');
    expect(text).toBe(
      [
        '# Release notes',
        '',
        'Version 2.0 is out. It has a changelog (https://news.example.com/changes?x=1&y=2) and a jump.',
        '',
        '- Faster',
        '- Smaller',
        '  - by 10 %',
        '',
        '1. first',
        '2. second',
        '',
        'Name | Score',
        'Ada | 10',
        '',
        '  line one',
        '    line two',
        '',
        'Mail us (mailto:team@example.com); click; [image: a chart]',
        '',
        '## Details — more!',
      ].join('\n'),
    );
    for (const gone of [
      'injected',
      'color: red',
      'Home',
      'About',
      'hidden text',
      'decorative',
      'Enable JavaScript',
      'svg text',
      'icon',
      'comment',
    ]) {
      expect(text).not.toContain(gone);
    }
  });

  it('honours <base href> and leaves links whose text is their URL alone', () => {
    const { text } = htmlToText(
      '<base href="https://docs.example.org/v2/"><p><a href="guide">Guide</a> <a href="https://x.example/">https://x.example/</a></p>',
      'https://ignored.example.com/',
    );
    expect(text).toBe('Guide (https://docs.example.org/v2/guide) https://x.example/');
  });

  it.each([
    ['an unterminated tag', '<p>before<a href="x'],
    ['an unterminated comment', 'text <!-- never closed'],
    ['an unterminated script', '<p>ok</p><script>var x = "</p>'],
    ['a stray <', 'a < b and c <3 d'],
    ['an end tag without name', 'x </ > y'],
  ])('degrades gracefully on %s', (_name, html) => {
    expect(() => htmlToText(html)).not.toThrow();
  });

  it('reads a stray < as text and drops what an unterminated script holds', () => {
    expect(htmlToText('a < b and c <3 d').text).toBe('a < b and c <3 d');
    expect(htmlToText('<p>ok</p><script>var x = "</p>').text).toBe('ok');
  });

  it.each([
    ['many unclosed end tags', '</a'.repeat(300_000)],
    ['many unclosed start tags', '<a '.repeat(300_000)],
    ['many quotes', `<a href="${'"'.repeat(300_000)}`],
    ['deep nesting', `${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}`],
  ])('stays linear on %s (about 1 MB)', (_name, html) => {
    const started = performance.now();
    htmlToText(html);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('htmlToText parsing (htmlparser2)', () => {
  it('reads attributes quoted, unquoted and bare, first one wins, entities decoded', () => {
    const { text } = htmlToText(
      `<a HREF='/x?a=1&amp;b=2' data-x=plain disabled href="/second">go</a>`,
      'https://example.com/',
    );
    expect(text).toBe('go (https://example.com/x?a=1&b=2)');
  });

  it.each([
    ['&lt;b&gt; &amp; &quot;q&quot; &#39;s&#39;', '<b> & "q" \'s\''],
    ['&#x1F600; &#128512;', '😀 😀'],
    ['&#0; &#xD800; &#x110000;', '\ufffd \ufffd \ufffd'],
    ['&unknown; & alone', '&unknown; & alone'],
    // Named references beyond the few the hand-written decoder knew.
    ['&hearts; &frac12; &Omega; &rarr;', '♥ ½ Ω →'],
  ])('decodes %s', (input, expected) => {
    expect(htmlToText(`<p>${input}</p>`).text).toBe(expected);
  });

  it('drops a hidden element whose end tag is implied by the next one', () => {
    // The hand-written tokenizer kept these: it could not tell where an unclosed <p hidden> ended.
    expect(htmlToText('<p hidden>secret<p>shown<ul><li hidden>no<li>yes</ul>').text).toBe('shown\n\n- yes');
  });

  it('reads a page nested deeper than MAX_HTML_DEPTH up to the limit, and says so', () => {
    const html = `<p>kept</p>${'<div>'.repeat(MAX_HTML_DEPTH + 10)}too deep${'</div>'.repeat(MAX_HTML_DEPTH + 10)}`;
    expect(htmlToText(html).text).toBe(`kept\n\n${TOO_DEEP_NOTE}`);
    const fits = `${'<div>'.repeat(MAX_HTML_DEPTH - 1)}deep enough${'</div>'.repeat(MAX_HTML_DEPTH - 1)}`;
    expect(htmlToText(fits).text).toBe('deep enough');
  });

  it('reads raw text in a textarea-like element as text, not markup', () => {
    expect(htmlToText('<title>a <b>bold</b> title</title><p>body</p>').title).toBe('a <b>bold</b> title');
  });
});
